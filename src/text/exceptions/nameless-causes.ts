import type { Building } from './throwables.js'
import { traceLine } from './trace-lines.js'

// Throwables whose toString() does not start with their class name, so that a trace prints
// their `Caused by:` line without one (printStackTrace prints `Caused by: ` and the cause's
// toString(), https://docs.oracle.com/en/java/javase/17/docs/api/java.base/java/lang/Throwable.html#printStackTrace()).
// Eclipse Paho's MQTT v3 client overrides it as `getMessage() + " (" + reasonCode + ")"`
// (MqttException.java, org.eclipse.paho.client.mqttv3, https://github.com/eclipse-paho/paho.mqtt.java),
// so a localised JVM prints `Caused by: Tiempo de espera excedido … (32000)`. Such a line is
// that class when its reason code ends the line and the frame under it runs in the class's
// library: the class is inferred, never printed.

interface NamelessClass {
  class: string
  /** The package the first frame under the line runs in. */
  frames: string
}

const nameless: readonly NamelessClass[] = [
  { class: 'org.eclipse.paho.client.mqttv3.MqttException', frames: 'org.eclipse.paho.client.mqttv3.' },
]

const isDigit = (c: number) => c >= 48 && c <= 57

/** Whether `text` ends with ` (<digits>)`, a reason code of up to six digits. */
function endsWithCode(text: string): boolean {
  if (!text.endsWith(')')) return false
  const open = text.lastIndexOf(' (')
  const digits = text.length - 1 - (open + 2)
  if (open === -1 || digits < 1 || digits > 6) return false
  for (let i = open + 2; i < text.length - 1; i++) if (!isDigit(text.charCodeAt(i))) return false
  return true
}

/**
 * The method the frame on `line` runs, read from its `at ` onwards: the frame's position in
 * parentheses is not needed, so a frame the source cut after its method still counts.
 */
function frameOn(line: string): string | null {
  const kind = traceLine(line)
  if (kind.kind === 'frame') return kind.frame
  const text = line.trimStart()
  return text.startsWith('at ') ? text.slice(3).trimStart() : null
}

/** The cause a class-less `Caused by:` line at `at` prints, given the line under it; null when none is known. */
export function namelessCause(text: string, at: number, next: string | null): Building | null {
  const message = text.slice(at).trim()
  if (next === null || !endsWithCode(message)) return null
  const frame = frameOn(next)
  const known = frame === null ? undefined : nameless.find((n) => frame.startsWith(n.frames))
  return known ? { class: known.class, message, frames: [], inferred: true } : null
}
