import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createAjv, loadSchema } from '../ajv.js'
import type { ExceptionTaxonomyFile } from '../schema-types/exception-taxonomy-file.js'
import { toDetails } from '../schema-words.js'
import type { ThrowableText, Vendor, VendorCode } from '../text/exceptions/records.js'
import { BuiltinRulesError, builtinRulesDir } from './builtin-loader.js'

export const taxonomyFileName = 'exception-taxonomy.json'

const validate = createAjv().compile<ExceptionTaxonomyFile>(loadSchema('exception-taxonomy.schema.json'))

/**
 * Simple names too general to place an unlisted class under (`FooException` is not a kind
 * of anything; a `FooConnectionException` is not the Cassandra driver's `ConnectionException`).
 */
const generalNames = new Set([
  'Throwable',
  'Exception',
  'Error',
  'RuntimeException',
  'ConnectionException',
  'TransportException',
  'AuthenticationException',
])

const simpleName = (name: string) => name.slice(Math.max(name.lastIndexOf('.'), name.lastIndexOf('$')) + 1)
const isJdk = (name: string) => name.startsWith('java.') || name.startsWith('javax.')

/**
 * The exception taxonomy (builtin-rules/exception-taxonomy.json; docs/design.md, "Exceptions
 * and codes"): what a throwable's class, message and codes mean, which branch a meaning
 * supports, and whose failure a package names. Read once per thread and never changed.
 */
export class ExceptionTaxonomy {
  readonly version: string
  /** Every package prefix that names a component or a vendor: what the exception reader notes of frames. */
  readonly componentPrefixes: string[]
  private readonly branches = new Map<string, string | null>()
  private readonly parents = new Map<string, string | null>()
  private readonly classMeanings = new Map<string, string>()
  private readonly bySimpleName = new Map<string, string[]>()
  private readonly suffixNames: string[]
  private readonly ancestry = new Map<string, readonly string[]>()
  private readonly components: ExceptionTaxonomyFile['components']['entries']
  /** Classes that mean something only where they are thrown (a component's `classMeanings`). */
  private readonly thrownClasses: Set<string>
  private readonly vendors: Array<{ vendor: Vendor; prefixes: string[] }>
  /** Message entries by the class they are for, each with its place in the file (the first that matches wins). */
  private readonly messages = new Map<string, Array<{ index: number; contains: string; meaning: string }>>()
  private readonly sqlStates = new Map<string, string>()
  private readonly vendorCodes = new Map<string, Array<{ vendor: Vendor; meaning: string }>>()
  private readonly errno = new Map<string, string>()

  constructor(file: ExceptionTaxonomyFile) {
    this.version = file.version
    for (const { meaning, branch } of file.meanings) this.branches.set(meaning, branch)
    for (const entry of file.classes.entries) {
      this.parents.set(entry.class, entry.parent)
      if (entry.meaning) this.classMeanings.set(entry.class, entry.meaning)
      const simple = simpleName(entry.class)
      this.bySimpleName.set(simple, [...(this.bySimpleName.get(simple) ?? []), entry.class])
    }
    this.suffixNames = [...this.bySimpleName.keys()]
      .filter((name) => !generalNames.has(name))
      .sort((a, b) => b.length - a.length)
    this.components = file.components.entries
    this.thrownClasses = new Set(this.components.flatMap((c) => Object.keys(c.classMeanings ?? {})))
    this.vendors = file.vendors.entries
    file.messages.entries.forEach(({ class: name, contains, meaning }, index) => {
      this.messages.set(name, [...(this.messages.get(name) ?? []), { index, contains, meaning }])
    })
    for (const { code, meaning } of file.sqlStates.entries) this.sqlStates.set(code, meaning)
    for (const { vendor, code, meaning } of file.vendorCodes.entries) {
      this.vendorCodes.set(code, [...(this.vendorCodes.get(code) ?? []), { vendor, meaning }])
    }
    for (const { name, meaning } of file.errno.entries) this.errno.set(name, meaning)
    this.componentPrefixes = [
      ...new Set([...this.components.flatMap((c) => c.prefixes), ...this.vendors.flatMap((v) => v.prefixes)]),
    ]
  }

  /** The branch a meaning supports; null for a meaning the catalogue has no branch for. */
  branchOf(meaning: string): string | null {
    return this.branches.get(meaning) ?? null
  }

  meanings(): string[] {
    return [...this.branches.keys()]
  }

  /**
   * The class and its ancestors, nearest first. A listed class has its declared ancestors;
   * a relocated (shaded) copy of a listed class is under that class (gRPC's
   * `io.grpc.netty.shaded.io.netty.channel.ConnectTimeoutException` under Netty's); any
   * other unlisted one is placed under the listed class whose simple name its own ends with
   * (`PSQLException` under `SQLException`, `MyConnectException` under `ConnectException`),
   * the JDK's when several share that name, or under nothing.
   */
  ancestors(name: string): readonly string[] {
    const known = this.ancestry.get(name)
    if (known) return known
    let chain: string[]
    if (this.parents.has(name)) {
      const parent = this.parents.get(name)
      chain = [name, ...(parent ? this.ancestors(parent) : [])]
    } else {
      const base = this.relocatedOf(name) ?? this.baseOf(name)
      chain = [name, ...(base ? this.ancestors(base) : [])]
    }
    this.ancestry.set(name, chain)
    return chain
  }

  /**
   * The listed class an unlisted one is a relocated copy of: a build that shades a library
   * keeps its whole package path behind a prefix of its own, so the name ends with a listed
   * class's full name after a package boundary. A simple name alone is no copy.
   */
  private relocatedOf(name: string): string | null {
    for (let dot = name.indexOf('.'); dot !== -1; dot = name.indexOf('.', dot + 1)) {
      const rest = name.slice(dot + 1)
      if (rest.includes('.') && this.parents.has(rest)) return rest
    }
    return null
  }

  /** Whether `name` is `ancestor` or a subclass of it; every class printed as a throwable is one. */
  isA(name: string, ancestor: string): boolean {
    return ancestor === 'java.lang.Throwable' || this.ancestors(name).includes(ancestor)
  }

  private baseOf(name: string): string | null {
    const simple = simpleName(name)
    const suffix = this.suffixNames.find((candidate) => simple.endsWith(candidate))
    if (!suffix) return null
    const classes = this.bySimpleName.get(suffix) ?? []
    if (classes.length === 1) return classes[0] as string
    return classes.find(isJdk) ?? null
  }

  /** The meaning a class has by its class alone: its own or its nearest ancestor's. */
  private classMeaningOf(name: string): string | null {
    for (const ancestor of this.ancestors(name)) {
      const meaning = this.classMeanings.get(ancestor)
      if (meaning) return meaning
    }
    return null
  }

  /** What one throwable means: its message first, then its codes, then its class or nearest ancestor's. */
  meaningOf(throwable: ThrowableText, vendor: Vendor | null): string | null {
    const { class: name, message } = throwable
    // The entries for the class, its ancestors and any throwable; the first in the file that matches.
    let found: { index: number; meaning: string } | null = null
    for (const ancestor of [...(name ? this.ancestors(name) : []), 'java.lang.Throwable']) {
      for (const entry of this.messages.get(ancestor) ?? []) {
        if ((found === null || entry.index < found.index) && message.includes(entry.contains)) found = entry
      }
    }
    if (found) return found.meaning
    const byCode = this.codeMeaning(throwable, vendor)
    if (byCode) return byCode
    return name ? this.classMeaningOf(name) : null
  }

  private codeMeaning(throwable: ThrowableText, vendor: Vendor | null): string | null {
    const { vendorCode, sqlState, errno } = throwable
    const byVendor = vendorCode ? this.vendorMeaning(vendorCode, vendor) : null
    if (byVendor) return byVendor
    if (sqlState) {
      const bySqlState = this.sqlStates.get(sqlState) ?? this.sqlStates.get(sqlState.slice(0, 2))
      if (bySqlState) return bySqlState
    }
    return errno ? (this.errno.get(errno) ?? null) : null
  }

  /**
   * A vendor code, read as the vendor's when the line or the classes say whose it is;
   * otherwise only when every vendor that has the code agrees on its branch.
   */
  private vendorMeaning(code: VendorCode, vendor: Vendor | null): string | null {
    const entries = this.vendorCodes.get(code.code) ?? []
    const whose = code.vendor ?? vendor
    if (whose) return entries.find((entry) => entry.vendor === whose)?.meaning ?? null
    const first = entries[0]
    if (!first) return null
    const branch = this.branchOf(first.meaning)
    return entries.every((entry) => this.branchOf(entry.meaning) === branch) ? first.meaning : null
  }

  /** The component a class or a frame's package prefix names. */
  componentOf(name: string): string | null {
    return this.components.find((c) => c.prefixes.some((prefix) => name.startsWith(prefix)))?.component ?? null
  }

  /**
   * The component a throwable's own codes name: a SQLSTATE (ISO/IEC 9075's status of an SQL
   * statement) or a database vendor code is only ever reported by a database, so a throwable
   * carrying one is the database's even with no driver class or frame in view.
   */
  componentOfCodes(throwable: ThrowableText): string | null {
    if (throwable.sqlState === null && throwable.vendorCode === null) return null
    return this.components.find((c) => c.namedByCodes === true)?.component ?? null
  }

  vendorOf(name: string): Vendor | null {
    return this.vendors.find((v) => v.prefixes.some((prefix) => name.startsWith(prefix)))?.vendor ?? null
  }

  /** Whether the printed class means something only where it is thrown (`thrownMeaning`). */
  meansWhereThrown(name: string): boolean {
    return this.thrownClasses.has(name)
  }

  /**
   * What a class without a meaning of its own means when the component threw it: the JDK's
   * `TimeoutException` is any blocking wait, but a database client's wait was for the database.
   */
  thrownMeaning(component: string, name: string): string | null {
    return this.components.find((c) => c.component === component)?.classMeanings?.[name] ?? null
  }

  /** What a kind of failure becomes when it is the component's (a refusal by a database is the database unreachable). */
  reroute(component: string, meaning: string): string | null {
    return this.components.find((c) => c.component === component)?.reroutes[meaning] ?? null
  }
}

/** Every meaning, parent, reroute and message class the file names must be in it. */
function checkReferences(file: ExceptionTaxonomyFile): string[] {
  const meanings = new Set(file.meanings.map((m) => m.meaning))
  const classes = new Set(file.classes.entries.map((c) => c.class))
  const problems: string[] = []
  const meaning = (where: string, value: string | undefined) => {
    if (value !== undefined && !meanings.has(value)) problems.push(`${where}: unknown meaning ${value}`)
  }
  if (classes.size !== file.classes.entries.length) problems.push('classes: a class is listed twice')
  for (const entry of file.classes.entries) {
    meaning(entry.class, entry.meaning)
    if (entry.parent === null ? entry.class !== 'java.lang.Throwable' : !classes.has(entry.parent))
      problems.push(`${entry.class}: parent ${entry.parent} is not listed`)
  }
  for (const entry of file.messages.entries) {
    meaning(`messages ${entry.contains}`, entry.meaning)
    if (!classes.has(entry.class)) problems.push(`messages ${entry.contains}: class ${entry.class} is not listed`)
  }
  for (const entry of file.components.entries) {
    for (const [from, to] of Object.entries(entry.reroutes)) {
      meaning(`component ${entry.component}`, from)
      meaning(`component ${entry.component}`, to)
    }
    for (const [name, to] of Object.entries(entry.classMeanings ?? {})) {
      meaning(`component ${entry.component}`, to)
      if (!classes.has(name)) problems.push(`component ${entry.component}: class ${name} is not listed`)
    }
  }
  if (file.components.entries.filter((c) => c.namedByCodes === true).length > 1)
    problems.push('components: a SQLSTATE or vendor code can name one component only')
  for (const entry of [...file.sqlStates.entries, ...file.vendorCodes.entries, ...file.errno.entries]) {
    meaning(`code ${'code' in entry ? entry.code : entry.name}`, entry.meaning)
  }
  return problems
}

const loaded = new Map<string, ExceptionTaxonomy>()

/**
 * Loads and checks builtin-rules/exception-taxonomy.json once per directory: its schema,
 * then its references. A start refuses a file that is not the pinned one before this
 * (shipped-rules.ts, D29).
 */
export function loadExceptionTaxonomy(dir = builtinRulesDir): ExceptionTaxonomy {
  const known = loaded.get(dir)
  if (known) return known
  const file = join(dir, taxonomyFileName)
  const data: unknown = JSON.parse(readFileSync(file, 'utf8'))
  if (!validate(data)) {
    const problems = toDetails(validate.errors).map((d) => `${d.path} ${d.message}`)
    throw new BuiltinRulesError(`${file}: ${problems.join('; ')}`)
  }
  const problems = checkReferences(data)
  if (problems.length > 0) throw new BuiltinRulesError(`${file}: ${problems.join('; ')}`)
  const taxonomy = new ExceptionTaxonomy(data)
  loaded.set(dir, taxonomy)
  return taxonomy
}
