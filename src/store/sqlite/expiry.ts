import { type ExpiredOccurrence, expireUnheard } from '../incident-expiry.js'
import { sqliteNamed } from '../sql-parameters.js'
import type { Db } from './database.js'
import { DuplicateAnswers } from './duplicate-answers.js'
import type { HeardOccurrences } from './heard-occurrences.js'

/**
 * Closes the open occurrences last heard before `cutoff` as expired (src/store/incident-expiry.ts),
 * in one transaction, after writing the duplicates heard and not yet written: they count.
 */
export function expireOccurrences(db: Db, cutoff: number, now: number, heard?: HeardOccurrences): ExpiredOccurrence[] {
  const expire = db.prepare<{ cutoff: number; now: number }, ExpiredOccurrence>(sqliteNamed(expireUnheard))
  return db
    .transaction(() => {
      heard?.writeInto()
      const expired = expire.all({ cutoff, now })
      // A repeat of an expired occurrence opens it again: it is no longer a duplicate.
      if (expired.length > 0) DuplicateAnswers.of(db).clear()
      return expired
    })
    .immediate()
}
