// Preloaded into the service by `BENCH_PROFILE=1 npm run bench:worker` (node --require, which,
// unlike --import, Node 20 also runs in every worker thread): each thread writes what its own
// V8 isolate holds, by heap space, to BENCH_MEMORY_DIR/<threadId>.json four times a second, so
// that the benchmark can tell where the service's RSS goes (docs/performance.md, "Where one
// event's time and memory go"). A thread cannot read another isolate's heap on Node 20.
import { readlinkSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8'
import { isMainThread, threadId } from 'node:worker_threads'

const dir = process.env.BENCH_MEMORY_DIR
if (dir) {
  // The kernel's id of this thread, so that the benchmark can read its CPU time under /proc.
  const tid = Number(readlinkSync('/proc/thread-self').split('/').pop())
  const write = () => {
    const usage = process.memoryUsage()
    const heap = getHeapStatistics()
    const snapshot = {
      thread: isMainThread ? 'main' : `worker ${threadId}`,
      tid,
      at: Date.now(),
      // Per isolate: heapTotal, heapUsed, external, arrayBuffers; rss is the whole process's.
      usage,
      mallocedBytes: heap.malloced_memory,
      physicalBytes: heap.total_physical_size,
      spaces: Object.fromEntries(
        getHeapSpaceStatistics().map((space) => [
          space.space_name,
          { physical: space.physical_space_size, used: space.space_used_size },
        ]),
      ),
    }
    // Written aside, then renamed: the benchmark never reads half a file.
    const file = join(dir, `${threadId}.json`)
    writeFileSync(`${file}.part`, JSON.stringify(snapshot))
    renameSync(`${file}.part`, file)
  }
  setInterval(write, 250).unref()
}
