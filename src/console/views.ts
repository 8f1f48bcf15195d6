import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import Handlebars from 'handlebars'
import { packageRoot } from '../paths.js'

// The console's pages: Handlebars templates of src/console/templates/, compiled once when
// the service starts (a broken one stops the start). Every value is escaped by Handlebars;
// the one triple-stash is the layout's `body`, a page this module rendered itself. No page
// has a script, an inline style or an event attribute (the CSP, docs/design.md, "The web
// console"); a template starting with `_` is a partial (a section, a chart).

export const templatesDir = join(packageRoot, 'src', 'console', 'templates')

export interface Layout {
  title: string
  /** Who is signed in, with the sign-out form's CSRF token; null on the sign-in page. */
  signedIn: { principal: string; csrf: string } | null
  /** The navigation entry of this page. */
  current?: 'incidents' | 'charts' | 'rules'
}

export interface ConsoleViews {
  /** A whole page: `name`'s template rendered with `model`, inside the layout. */
  page(name: string, model: object, layout: Layout): string
}

export function loadConsoleViews(dir = templatesDir): ConsoleViews {
  const handlebars = Handlebars.create()
  const pages = new Map<string, Handlebars.TemplateDelegate>()
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.hbs'))) {
    const name = file.slice(0, -'.hbs'.length)
    const source = readFileSync(join(dir, file), 'utf8')
    if (name.startsWith('_')) handlebars.registerPartial(name.slice(1), source)
    // preventIndent: a partial on an indented line would otherwise indent every line it
    // renders, the report's text in <pre> included.
    else pages.set(name, handlebars.compile(source, { strict: true, preventIndent: true }))
  }
  const layout = pages.get('layout')
  if (!layout) throw new Error(`${dir}/layout.hbs is missing`)
  return {
    page(name, model, chrome) {
      const template = pages.get(name)
      if (!template) throw new Error(`no console template ${name}.hbs`)
      const nav = (['incidents', 'charts', 'rules'] as const).map((page) => ({
        href: `/console/${page}`,
        label: page[0]?.toUpperCase() + page.slice(1),
        current: chrome.current === page,
      }))
      return layout({ ...chrome, nav, body: template(model) })
    },
  }
}
