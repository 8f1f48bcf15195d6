// The help of `appserver-diag` and of each command, each with an example.

const connection = `connection, each setting from the first place that has it:
  flags         --url URL, --token TOKEN or --token-file FILE, --ca CAFILE
  environment   DIAG_CLI_URL, DIAG_CLI_TOKEN or DIAG_CLI_TOKEN_FILE (or DIAG_API_TOKEN), DIAG_CLI_CA
  config file   --config FILE or DIAG_CLI_CONFIG, else ~/.config/appserver-diag/config.json
                if it exists: {"url": "https://...", "tokenFile": "...", "caFile": "..."}
                (paths relative to the file's folder)
  defaults      https://localhost:8443, ./data/api-token and ./data/tls/ca.pem, as a local
                \`npm start\` creates them`

const incidentFilters = `  --status S        open, resolved or superseded
  --instance NAME    the appserver_instance label
  --category C       the category of the diagnosis (jvm_memory, database_persistence, ...)
  --since TIME       opened at or after this RFC 3339 time (2026-11-22T05:00:00Z)
  --limit N          at most N incidents (default 50), newest first
  --cursor C         continue where a previous list stopped
  --all              every incident that matches, however many`

export const help: Record<string, string> = {
  main: `usage: appserver-diag <command> [options]

commands:
  incidents list         list incidents, newest first, with the API's filters
  incidents show ID      one incident: diagnosis, matched lines, evidence, events, mails
  rules push FILE        register the rules of a rulepack file
  rules list             list the rule catalogue
  rules test FILE        try a rulepack on a log file before registering it
  rules replay FILE      what a rulepack would change on the last diagnosed incidents
  storage copy           move a stopped service's SQLite database into an empty PostgreSQL

options: --json or -o json (machine-readable output), --help (for any command), --version

Results go to stdout, errors to stderr. Exit codes: 0 done, 1 refused or failed, 2 usage.
Run 'appserver-diag rules push --help' for a command's options and an example.`,
  'incidents list': `usage: appserver-diag incidents list [filters] [--json | -o json] [connection]

Lists incidents through GET /api/v1/incidents, newest first: one line each with its id,
status, when it opened, the alert, the instance and the diagnosis. --json prints the API's
answer: {"incidents": [...], "nextCursor": null or a cursor for --cursor}.

${incidentFilters}

example:
  appserver-diag incidents list --status open --instance app-01 -o json

${connection}`,
  'incidents show': `usage: appserver-diag incidents show ID [--events-limit N] [--events-cursor C] [--json | -o json] [connection]

Shows one incident through GET /api/v1/incidents/ID: what the report said (the primary
finding, the other matches, the matched log lines), the evidence that was read, the
notifications that changed the incident and what became of their mails. --json prints the
API's answer as it is. Every report names the command that shows its incident.

  --events-limit N   events per page, 1 to 200 (default 50)
  --events-cursor C  the next page of events (a previous answer's nextEventsCursor)

example:
  appserver-diag incidents show 0197a3c4-5d2e-7f10-8a4b-3c2d1e0f9a8b

${connection}`,
  'rules push': `usage: appserver-diag rules push FILE [--json | -o json] [connection]

Registers each rule of FILE (one rule object or an array) through POST /api/v1/rules.
A rule the schema refuses is not sent: the command says in words what is wrong with it.
A rule identical to a registered one is skipped. A rule whose branch, name or pattern is
already taken by a rule that says something else is refused: the command names that rule
and exits 1. Rules are append-only: try them with 'rules test' first.

example:
  appserver-diag rules push examples/rulepack.json --url https://diag.example.internal:8443 \\
      --token-file ~/.config/appserver-diag/token --ca /etc/diagnostic/ca.pem

${connection}`,
  'rules list': `usage: appserver-diag rules list [--category CATEGORY] [--json | -o json] [connection]

Lists the catalogue: the built-in rules and every registered custom rule.

example:
  appserver-diag rules list --category database_persistence

${connection}`,
  'rules test': `usage: appserver-diag rules test FILE --log LOGFILE [--alertname NAME] [--expect-match] [--json | -o json] [connection]

Evaluates the rules of FILE with the service's engine, next to the built-in and seed
rules, over the tail of LOGFILE (the service's bounds, redacted as the service redacts).
When a service is reachable, each rule is also checked against its catalogue (a dry run
that stores nothing): a conflict there fails the test. Unreachable, it says so.

  --alertname NAME   the alertname to evaluate for (rules with a ruleId)
  --expect-match     exit 1 when a rule of FILE matches nothing

example:
  appserver-diag rules test my-rules.json --log /var/log/tomcat10/catalina.out --expect-match

${connection}`,
  'rules replay': `usage: appserver-diag rules replay FILE [--last N] [--json | -o json] [connection]

Replays the rules of FILE (one rule object or an array) through POST /api/v1/rules/replay:
each is checked exactly as registration checks it, then evaluated with the current
catalogue on the stored evidence of the last N diagnosed events. Prints the incidents whose
primary finding would change (before -> after), how many would only get another finding,
how many stay as they are, each rule's matches and its CPU cost per event. Nothing is
registered; a token with the read scope is enough.

  --last N           the last N diagnosed events, 1 to 5000 (default 1000)

example:
  appserver-diag rules replay my-rules.json --last 500

${connection}`,
  'storage copy': `usage: appserver-diag storage copy --from SQLITE_FILE --to POSTGRES_URL [--json | -o json]

Copies every incident, event, queue item, result, mail and rule of a SQLite database into
an empty PostgreSQL database (its schema created there first), in one transaction: from
then on the service runs with DIAG_DATABASE_URL. Stop the service first; a PostgreSQL
database that already holds incidents, events or rules is refused, nothing copied.

example:
  appserver-diag storage copy --from data/diagnostic.db \\
      --to 'postgres://diag@db.example.internal:5432/diag?sslmode=verify-full&sslrootcert=/etc/diag/pg-ca.pem'`,
}
