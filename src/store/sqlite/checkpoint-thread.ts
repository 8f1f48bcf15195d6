// The body of the checkpoint thread (wal-checkpoints.ts): a second connection to the
// service's database that copies the WAL into the database file when asked, so that the
// copies and SQLite's two syncs of a checkpoint never hold the event loop.
import { parentPort, workerData } from 'node:worker_threads'
import Database from 'better-sqlite3'

export type CheckpointRequest = { type: 'checkpoint' } | { type: 'close' }
/** One PASSIVE run: the WAL's frames and how many of them are in the database file now; or why it failed. */
export type CheckpointReply =
  | { type: 'checkpointed'; log: number; checkpointed: number }
  | { type: 'failed'; message: string; code?: string }

const port = parentPort
if (!port) throw new Error('checkpoint-thread.js runs as a worker thread')
const db = new Database((workerData as { file: string }).file, { fileMustExist: true })
// Off the event loop, a lock may be waited for (a reader of another process recovering the WAL).
db.pragma('busy_timeout = 1000')

port.on('message', (message: CheckpointRequest) => {
  if (message.type === 'close') {
    db.close()
    port.close()
    return
  }
  // PASSIVE never waits for the service's writer nor its readers, and none of them waits
  // for it: it copies what no reader still needs, and the writer starts the WAL again from
  // its beginning once everything is copied.
  let reply: CheckpointReply
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number; checkpointed: number }>
    reply = { type: 'checkpointed', log: result?.log ?? 0, checkpointed: result?.checkpointed ?? 0 }
  } catch (error) {
    // A full disk or an I/O error: told, and tried again when next asked.
    const { message, code } = error as { message: string; code?: string }
    reply = { type: 'failed', message, ...(code ? { code } : {}) }
  }
  port.postMessage(reply)
})
