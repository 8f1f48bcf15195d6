import { defineConfig } from 'vitest/config'

// `npm run eval:review-held-out` only: the deliberate review of held-out misses
// (test/corpus/README.md). `npm test` never runs it, so held-out content is never printed there.
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/corpus/review-held-out.review.ts'],
    testTimeout: 60_000,
  },
})
