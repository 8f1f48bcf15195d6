// The baseline of the ingestion benchmark: a bare Fastify server from our own dependencies,
// on TLS 1.3 with the service's certificate, that parses the JSON body and answers 202
// without authenticating, validating or storing anything.
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'

const [certFile, keyFile] = process.argv.slice(2)
if (!certFile || !keyFile) throw new Error('usage: bare-server CERT KEY')

const app = Fastify({
  https: { cert: readFileSync(certFile), key: readFileSync(keyFile), minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3' },
  bodyLimit: 256 * 1024,
})
app.post('/api/v1/alerts/alertmanager', async (_request, reply) => reply.code(202).send({ status: 'accepted' }))
await app.listen({ host: '127.0.0.1', port: 0 })
const address = app.server.address()
process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`)
// A normal exit on SIGTERM, so that --cpu-prof (BENCH_NODE_ARGS) writes its profile.
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)))
