import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Handlebars from 'handlebars'
import type { DiagnosisModel, RecoveryModel } from './report-model.js'
import { quoteModel } from './text-quoting.js'

export interface Rendered {
  text: string
  html: string
}

export interface ReportTemplates {
  diagnosis(model: DiagnosisModel): Rendered
  recovery(model: RecoveryModel): Rendered
}

export class TemplateError extends Error {}

const names = ['diagnosis.text', 'diagnosis.html', 'recovery.text', 'recovery.html'] as const

/**
 * Loads and compiles the report templates of `dir` (D23: `templates/` or DIAG_TEMPLATES_DIR).
 * HTML templates escape every value; text templates get every value with its further lines
 * quoted (text-quoting.ts), so that nothing an alert holds can start a line of the report.
 */
export function loadTemplates(dir: string): ReportTemplates {
  const handlebars = Handlebars.create()
  handlebars.registerHelper('ordinal', (index: number) => index + 1)
  const compiled = {} as Record<(typeof names)[number], Handlebars.TemplateDelegate>
  for (const name of names) {
    const file = join(dir, `${name}.hbs`)
    let source: string
    try {
      source = readFileSync(file, 'utf8')
    } catch (error) {
      throw new TemplateError(`template ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
    }
    try {
      compiled[name] = handlebars.compile(source, { noEscape: name.endsWith('.text'), strict: false })
    } catch (error) {
      throw new TemplateError(`template ${file} does not compile: ${(error as Error).message}`)
    }
  }
  const render = (name: (typeof names)[number], model: unknown) => {
    try {
      return compiled[name](model)
    } catch (error) {
      throw new TemplateError(`template ${name}.hbs failed to render: ${(error as Error).message}`)
    }
  }
  return {
    diagnosis: (model) => ({
      text: render('diagnosis.text', quoteModel(model)),
      html: render('diagnosis.html', model),
    }),
    recovery: (model) => ({ text: render('recovery.text', quoteModel(model)), html: render('recovery.html', model) }),
  }
}
