import { closeSync, fdatasync, fdatasyncSync, fstatSync, fsyncSync, openSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import { promisify } from 'node:util'
import type { SyncWal } from './wal-sync.js'

const fdatasyncAsync = promisify(fdatasync)

export interface WalFile {
  /** fdatasync of the WAL on libuv's pool: on Linux it flushes the file's dirty pages, whichever descriptor wrote them. */
  sync: SyncWal
  /** The file's size now (fstat): what the checkpoints are decided on (wal-checkpoints.ts). */
  size(): number
  close(): void
}

/**
 * A descriptor of `<db>-wal` to sync what SQLite wrote through its own (wal-sync.ts). SQLite
 * deletes the WAL only when the last connection closes, and the service holds its one
 * connection open until it stops, so the file this opens stays the WAL; it is checked to be
 * the file at that path (the same inode) before it is trusted. Opened after the migrations,
 * when the WAL exists; its directory entry and what the migrations wrote are synced once here.
 */
export function openWalFile(dbFile: string): WalFile {
  const path = `${dbFile}-wal`
  // Read-write without create: a missing WAL is an error, never a new empty file.
  const fd = openSync(path, 'r+')
  try {
    const opened = fstatSync(fd)
    const named = statSync(path)
    if (opened.ino !== named.ino || opened.dev !== named.dev || opened.nlink === 0)
      throw new Error(`${path} changed while it was opened`)
    fdatasyncSync(fd)
    const dir = openSync(dirname(path), 'r')
    try {
      fsyncSync(dir)
    } finally {
      closeSync(dir)
    }
  } catch (error) {
    closeSync(fd)
    throw error
  }
  return { sync: () => fdatasyncAsync(fd), size: () => fstatSync(fd).size, close: () => closeSync(fd) }
}
