import pg from 'pg'
import type { CustomRule } from '../../rules/types.js'
import { type PgRulesRepository, rulesChannel } from './rules-repository.js'

interface Log {
  warn(obj: object, msg: string): void
}

/**
 * Rules registered on any replica, taken by this one (docs/design.md, "Storage"): a
 * dedicated connection LISTENs for each committed rule and hot-adds what is new; after a
 * dropped connection it reconnects and catches up. A notification can still be missed
 * (the connection dropped just then), so `fresh` compares the catalogue's version with the
 * cluster's before each diagnosis: a replica never evaluates with a catalogue it knows is stale.
 */
export class RuleNotifications {
  private client: pg.Client | undefined
  private stopped = false
  private catching: Promise<void> | undefined
  private again = false
  private retry: NodeJS.Timeout | undefined

  constructor(
    private readonly url: string,
    private readonly repository: PgRulesRepository,
    /** The ids of the rules this replica's catalogue holds. */
    private readonly known: () => ReadonlySet<number>,
    private readonly adopt: (rule: CustomRule) => void,
    private readonly log: Log,
    private readonly reconnectMs = 1000,
  ) {}

  async start(): Promise<void> {
    this.stopped = false
    await this.connect()
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: 'appserver-diag rules' })
    const lost = (error?: unknown) => {
      if (this.client !== client) return
      this.client = undefined
      client.end().catch(() => {})
      if (this.stopped) return
      this.log.warn({ err: error }, 'rule notifications lost; reconnecting')
      this.retry = setTimeout(() => {
        this.connect().catch((next: unknown) => lost(next))
      }, this.reconnectMs)
      this.retry.unref()
    }
    client.on('error', lost)
    client.on('end', () => lost())
    client.on('notification', () => {
      this.catchUp().catch((error: unknown) => this.log.warn({ err: error }, 'could not read a new rule'))
    })
    this.client = client
    await client.connect()
    await client.query(`LISTEN ${rulesChannel}`)
    // What was committed while this replica was not listening.
    await this.catchUp()
  }

  /** Adopts every committed rule this catalogue lacks; one catch-up at a time. */
  catchUp(): Promise<void> {
    if (this.catching) {
      // A rule announced during a read may have committed after it: read once more.
      this.again = true
      return this.catching
    }
    this.catching = (async () => {
      try {
        do {
          this.again = false
          for (const rule of await this.repository.missing(this.known())) this.adopt(rule)
        } while (this.again)
      } finally {
        this.catching = undefined
      }
    })()
    return this.catching
  }

  /** The catalogue version check: catches up when the cluster holds a rule this replica does not. */
  async fresh(): Promise<void> {
    if ((await this.repository.committed()) > this.known().size) await this.catchUp()
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.retry)
    const client = this.client
    this.client = undefined
    await client?.end().catch(() => {})
  }
}
