import { type HttpResponse, request } from './https-client.js'

/** One Set-Cookie header, its attributes by lower-case name (`true` for a flag). */
export interface SetCookie {
  name: string
  value: string
  attributes: Record<string, string | true>
}

export function parseSetCookie(header: string): SetCookie {
  const [pair = '', ...rest] = header.split(';').map((part) => part.trim())
  const at = pair.indexOf('=')
  const attributes: Record<string, string | true> = {}
  for (const attribute of rest) {
    const eq = attribute.indexOf('=')
    if (eq < 0) attributes[attribute.toLowerCase()] = true
    else attributes[attribute.slice(0, eq).toLowerCase()] = attribute.slice(eq + 1)
  }
  return { name: pair.slice(0, at), value: pair.slice(at + 1), attributes }
}

export const setCookies = (res: HttpResponse) => {
  const header = res.headers['set-cookie']
  return (Array.isArray(header) ? header : header ? [header] : []).map(parseSetCookie)
}

/** A text as Handlebars escapes it in a page. */
export const htmlEscaped = (text: string) =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#x27;')
    .replaceAll('=', '&#x3D;')
    .replaceAll('`', '&#x60;')

/** An attribute's value as the browser reads it (Handlebars escapes & and = among others). */
export const htmlUnescaped = (text: string) =>
  text.replace(
    /&(amp|quot|#x27|#x3D|#x60|lt|gt);/g,
    (_, name: string) => ({ amp: '&', quot: '"', '#x27': "'", '#x3D': '=', '#x60': '`', lt: '<', gt: '>' })[name] ?? '',
  )

/** The CSRF token of the first form of a page. */
export function csrfOf(html: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1]
  if (!token) throw new Error('the page has no CSRF token')
  return token
}

/**
 * A browser's part of the console conversation over real HTTPS: a cookie jar (what the
 * server set, removed when it expires them), GETs, and url-encoded form posts. No bearer token.
 */
export class ConsoleClient {
  readonly cookies = new Map<string, string>()

  constructor(
    private readonly url: string,
    private readonly ca: Buffer,
  ) {}

  private async send(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
    const res = await request(`${this.url}${path}`, {
      method,
      ca: this.ca,
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body }),
    })
    for (const set of setCookies(res)) {
      if (set.attributes['max-age'] === '0' || set.value === '') this.cookies.delete(set.name)
      else this.cookies.set(set.name, set.value)
    }
    return res
  }

  get(path: string, headers?: Record<string, string>) {
    return this.send('GET', path, undefined, headers)
  }

  post(path: string, form: Record<string, string>, headers?: Record<string, string>) {
    return this.send('POST', path, new URLSearchParams(form).toString(), headers)
  }

  /** The sign-in page, then its form posted with `token`: the answer to the post. */
  async signIn(token: string, next?: string) {
    const page = await this.get('/console/sign-in')
    return this.post('/console/sign-in', { _csrf: csrfOf(page.text), token, ...(next ? { next } : {}) })
  }

  /** The sign-out form of a console page, posted. */
  async signOut() {
    const page = await this.get('/console/incidents')
    return this.post('/console/sign-out', { _csrf: csrfOf(page.text) })
  }
}
