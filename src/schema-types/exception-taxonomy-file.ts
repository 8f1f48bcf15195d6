// Generated from schemas/exception-taxonomy.schema.json by src/schema-types/generate-schema-types.mjs (npm run build): do not edit.

export type Meaning = string
export type Text = string
export type Prefix = string
export type Vendor = 'oracle' | 'db2' | 'mysql' | 'sqlserver' | 'postgresql' | 'h2'
export type ClassName = string

/**
 * docs/design.md, "Exceptions and codes". Each table names the public sources it was taken from.
 */
export interface ExceptionTaxonomyFile {
  $schema?: string
  version: string
  /**
   * What a failure is; `branch` is the catalogue branch it supports, null for a failure the catalogue has no branch for (it still decides the kind: a deeper cause with a meaning is never overruled by a wrapper)
   *
   * @minItems 1
   */
  meanings: {
    meaning: Meaning
    branch: string | null
    description: Text
  }[]
  components: Table
  vendors: Table1
  classes: Table2
  messages: Table3
  sqlStates: Table4
  vendorCodes: Table5
  errno: Table6
}
/**
 * Whose failure it is: a throwable or a stack frame in one of these packages names the component, and a component may turn the kind of failure into its own (a refused connection to a database is the database unreachable)
 */
export interface Table {
  entries: {
    component: Meaning
    /**
     * @minItems 1
     */
    prefixes: Prefix[]
    reroutes: {
      [k: string]: Meaning
    }
    /**
     * A throwable that carries a SQLSTATE or a database vendor code names this component too, whatever its class (or when the line shows none): only a database reports either
     */
    namedByCodes?: boolean
    /**
     * What a listed class without a meaning of its own means when it is thrown in this component: in the nearest frames of its own, or of its wrappers when the log shows none (the JDK's TimeoutException is any blocking wait; thrown by a database client, the wait was for the database). The printed class must be the key itself: a namesake or a subclass is not read
     */
    classMeanings?: {
      [k: string]: Meaning
    }
  }[]
}
/**
 * Which database a class or frame belongs to, for a numeric vendor code that does not say
 */
export interface Table1 {
  entries: {
    vendor: Vendor
    /**
     * @minItems 1
     */
    prefixes: Prefix[]
  }[]
}
/**
 * Throwable classes with their parent: a class without a meaning of its own has its nearest ancestor's; an unlisted class is placed under the listed class whose simple name its own ends with
 */
export interface Table2 {
  entries: {
    class: ClassName
    parent: ClassName | null
    meaning?: Meaning
  }[]
}
/**
 * A message that decides what a class (or a subclass) means, checked in order before codes and classes: the first that matches wins
 */
export interface Table3 {
  entries: {
    class: ClassName
    contains: string
    meaning: Meaning
  }[]
}
/**
 * SQLSTATE classes (two characters) and codes (five); a code's entry wins over its class's
 */
export interface Table4 {
  entries: {
    code: string
    name: Text
    meaning: Meaning
  }[]
}
/**
 * Database vendors' own error codes: Oracle `ORA-nnnnn`, DB2 SQLCODE, MySQL and SQL Server error numbers
 */
export interface Table5 {
  entries: {
    vendor: Vendor
    code: string
    name: Text
    meaning: Meaning
  }[]
}
/**
 * POSIX errno and getaddrinfo names (the reader also reads them from the C library's messages)
 */
export interface Table6 {
  entries: {
    name: string
    meaning: Meaning
  }[]
}
