import { execFileSync } from 'node:child_process'

// End-to-end tests start the real process from dist/, exactly as `npm start` does.
export default function setup(): void {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' })
}
