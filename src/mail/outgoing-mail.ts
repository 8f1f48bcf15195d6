// What the worker asks to send; mail/ composes and delivers it.

export interface OutgoingMail {
  eventId: string
  kind: 'diagnosis' | 'refire' | 'recovery'
  /** Not sent while this event's mail is still pending: mails of an incident go in order. */
  afterEventId: string | null
  messageId: string
  inReplyTo: string | null
  subject: string
  recipients: string[]
  text: string
  html: string
}
