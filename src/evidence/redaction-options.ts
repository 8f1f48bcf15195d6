// Optional masking of personal data, off by default (docs/design.md, "Secret redaction"):
// card numbers that pass the Luhn check, and the local part of e-mail addresses.
import type { SecretSignature } from './secret-signatures.js'
import { mask } from './secret-words.js'

export interface RedactionOptions {
  /** Mask card numbers (13 to 19 digits, spaces or dashes between them, Luhn-checked). */
  maskCardNumbers?: boolean
  /** Mask the local part of e-mail addresses (the domain stays readable). */
  maskEmails?: boolean
}

/**
 * A card number: 13 to 19 digits, each group separated by at most one space or dash, not
 * inside a longer run of digits or word characters. Card numbers hold no word a prefilter
 * could look for, so this runs over the whole excerpt before the line rules.
 */
const cardNumber = /(?<![\w.-])\d(?:[ -]?\d){12,18}(?![\w-])/g

export function maskCardNumbers(text: string): string {
  return text.replace(cardNumber, (digits) => (luhn(digits.replace(/[ -]/g, '')) ? `${mask}-CARD` : digits))
}

function luhn(digits: string): boolean {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

/** The local part of an e-mail address; every address holds `@`, the prefilter's word. */
export const emailSignature: SecretSignature = {
  id: 'email-address',
  origin: 'option maskEmails: personal data',
  pattern: /(?<![\w.%+-])[\w.%+-]{1,64}@((?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24})(?![\w-])/g,
  replacement: `${mask}@$1`,
  markers: ['@'],
}

export const optionPatterns: readonly RegExp[] = [cardNumber, emailSignature.pattern]
