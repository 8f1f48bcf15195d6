/** Each schema, the file its types go to, and the name of its top-level type. */
export declare const generated: ReadonlyArray<{ schema: string; file: string; name: string }>
/** The text of each generated file, by file name. */
export declare function schemaTypes(): Promise<Map<string, string>>
