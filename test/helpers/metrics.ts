/**
 * Scrapes until the exposition shows a line: the service renders it at most once a second
 * and shares that rendering, so a value changed a moment ago may not be there yet.
 */
export async function scrapeUntil(scrape: () => Promise<string>, line: RegExp, timeoutMs = 5000): Promise<string> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const text = await scrape()
    if (line.test(text)) return text
    if (Date.now() > deadline) throw new Error(`the exposition never showed ${line}:\n${text}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** Counts what a component reports where it takes a prom-client counter (`inc`), for assertions. */
export const counter = () => ({
  n: 0,
  inc(k = 1) {
    this.n += k
  },
})
