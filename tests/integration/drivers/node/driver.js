// kafkajs driver for Skiff's compatibility suite. Reads one JSON request (see
// ../README.md) from the file named by its argument and prints one JSON
// response on stdout. Bounded by timeout_ms (a watchdog exits the process).
'use strict'
const fs = require('fs')
const { Kafka, CompressionTypes, CompressionCodecs, logLevel } = require('kafkajs')
const lz4js = require('lz4js')
const xxh32 = require('lz4js/xxh32.js')
const zstdWasm = require('@bokuweb/zstd-wasm')
const fzstd = require('fzstd')

// Codecs without native builds: snappy (snappyjs, xerial framing understood),
// LZ4 frames (lz4js), zstd (wasm to compress; fzstd decompresses streaming
// frames, which have no content size).
CompressionCodecs[CompressionTypes.Snappy] = require('kafkajs-snappy')
// lz4js.compress writes frames without the block-independence flag, which
// Kafka rejects ("Dependent block stream is unsupported"): write the frame
// here, each 64 KiB block compressed on its own.
function lz4Frame (src) {
  const BLOCK = 64 << 10
  const parts = []
  const hdr = Buffer.from([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0])  // magic, FLG v1|indep, BD 64 KiB
  hdr[6] = (xxh32.hash(0, hdr, 4, 2) >> 8) & 0xff
  parts.push(hdr)
  const out = Buffer.alloc(lz4js.compressBound(BLOCK))
  for (let at = 0; at < src.length; at += BLOCK) {
    const block = src.subarray(at, Math.min(src.length, at + BLOCK))
    const n = lz4js.compressBlock(block, out, 0, block.length, new Uint32Array(1 << 16))
    const size = Buffer.alloc(4)
    if (n === 0 || n >= block.length) {
      size.writeUInt32LE((0x80000000 | block.length) >>> 0)
      parts.push(size, Buffer.from(block))
    } else {
      size.writeUInt32LE(n)
      parts.push(size, Buffer.from(out.subarray(0, n)))
    }
  }
  parts.push(Buffer.alloc(4))  // end mark
  return Buffer.concat(parts)
}
CompressionCodecs[CompressionTypes.LZ4] = () => ({
  async compress (encoder) { return lz4Frame(encoder.buffer) },
  async decompress (buffer) { return Buffer.from(lz4js.decompress(buffer)) }
})
// init() exactly once: concurrent init() calls corrupt the wasm module's
// state (the batch compressed during a second init comes out as zeros).
let zstdInit = null
const zstdReady = () => (zstdInit = zstdInit || zstdWasm.init())
CompressionCodecs[CompressionTypes.ZSTD] = () => ({
  async compress (encoder) { await zstdReady(); return Buffer.from(zstdWasm.compress(encoder.buffer, 3)) },
  async decompress (buffer) { return Buffer.from(fzstd.decompress(buffer)) }
})
const CODECS = { none: CompressionTypes.None, gzip: CompressionTypes.GZIP, snappy: CompressionTypes.Snappy, lz4: CompressionTypes.LZ4, zstd: CompressionTypes.ZSTD }

const b64 = (b) => (b === null || b === undefined ? null : Buffer.from(b).toString('base64'))
const unb64 = (s) => (s === null || s === undefined ? null : Buffer.from(s, 'base64'))
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

// req.security (optional, see ../README.md): kafkajs's ssl and sasl options,
// given to the Kafka object and so to every producer, consumer and admin.
const MECHANISMS = {
  PLAIN: 'plain',
  'SCRAM-SHA-256': 'scram-sha-256',
  'SCRAM-SHA-512': 'scram-sha-512',
  OAUTHBEARER: 'oauthbearer'
}
function securityOpts (sec) {
  if (!sec || !sec.protocol || sec.protocol === 'PLAINTEXT') return {}
  if (!['SSL', 'SASL_PLAINTEXT', 'SASL_SSL'].includes(sec.protocol)) {
    throw new Error(`security.protocol ${sec.protocol}: want SSL, SASL_PLAINTEXT or SASL_SSL`)
  }
  const out = {}
  if (sec.protocol !== 'SASL_PLAINTEXT') {
    const ssl = { rejectUnauthorized: true, minVersion: 'TLSv1.2' }
    if (sec.ca) ssl.ca = [fs.readFileSync(sec.ca, 'utf8')]
    if (sec.cert) {
      if (!sec.key) throw new Error('security.cert needs security.key')
      ssl.cert = fs.readFileSync(sec.cert, 'utf8')
      ssl.key = fs.readFileSync(sec.key, 'utf8')
    }
    out.ssl = ssl
  }
  if (sec.protocol !== 'SSL') {
    const mechanism = MECHANISMS[sec.mechanism]
    if (!mechanism) throw new Error(`security.mechanism ${sec.mechanism}: want ${Object.keys(MECHANISMS).join(', ')}`)
    out.sasl = mechanism === 'oauthbearer'
      ? { mechanism, oauthBearerProvider: async () => ({ value: sec.token }) }
      : { mechanism, username: sec.user, password: sec.password }
  }
  return out
}

// The broker refused our credentials: kafkajs's SASL authentication error,
// possibly wrapped (retries exceeded, non-retriable) by the caller.
function authFailed (e) {
  for (let i = 0; e && i < 8; i++, e = e.cause || e.originalError) {
    if (e.name === 'KafkaJSSASLAuthenticationError' || e.type === 'SASL_AUTHENTICATION_FAILED') return true
  }
  return false
}

function errorOf (e, stack) {
  const out = { error: String(stack && e && e.stack ? e.stack : e) }
  if (authFailed(e)) out.auth = true
  return out
}

function client (req) {
  return new Kafka({
    clientId: 'skiff-compat',
    brokers: [req.bootstrap],
    connectionTimeout: 5000,
    requestTimeout: Math.min(10000, req.timeout_ms),
    retry: { initialRetryTime: 100, maxRetryTime: 1000, retries: req.retries ?? 8 },
    logLevel: logLevel.ERROR,
    ...securityOpts(req.security)
  })
}

// kafkajs keeps headers in an object: one key per name, repeated names as
// arrays (the order of distinct names is kept).
function headersIn (h) {
  const out = {}
  for (const [name, v] of h || []) {
    const val = unb64(v)
    if (name in out) out[name] = [].concat(out[name], [val])
    else out[name] = val
  }
  return out
}

function toRecord (partition, m) {
  const h = []
  for (const [name, v] of Object.entries(m.headers || {})) {
    for (const x of Array.isArray(v) ? v : [v]) h.push([name, b64(x)])
  }
  return { p: partition, o: Number(m.offset), k: b64(m.key), v: b64(m.value), h, ts: Number(m.timestamp) }
}

async function produce (req, kafka, records, opts = {}) {
  const producer = kafka.producer({ allowAutoTopicCreation: true, idempotent: false, maxInFlightRequests: 1 })
  await producer.connect()
  try {
    const results = new Array(records.length)
    // kafkajs returns one base offset per partition; records of a partition
    // get consecutive offsets in the order sent.
    const CHUNK = 2000
    for (let start = 0; start < records.length; start += CHUNK) {
      const chunk = records.slice(start, start + CHUNK)
      const messages = chunk.map((r) => {
        const m = { key: unb64(r.k), value: unb64(r.v), headers: headersIn(r.h) }
        if (r.p !== null && r.p !== undefined) m.partition = r.p
        if (r.ts !== null && r.ts !== undefined) m.timestamp = String(r.ts)
        return m
      })
      let meta
      try {
        meta = await producer.send({
          topic: req.topic,
          messages,
          acks: opts.acks ?? (req.acks === 1 ? 1 : -1),
          timeout: Math.min(10000, req.timeout_ms),
          compression: CODECS[opts.compression ?? req.compression ?? 'none']
        })
      } catch (e) {
        for (let i = 0; i < chunk.length; i++) results[start + i] = errorOf(e, false)
        continue
      }
      const next = {}
      for (const md of meta) next[md.partition] = Number(md.baseOffset)
      // Without an explicit partition kafkajs partitions by key: ask it again.
      for (let i = 0; i < chunk.length; i++) {
        const p = chunk[i].p
        if (p === null || p === undefined) {
          results[start + i] = { p: meta.length === 1 ? meta[0].partition : null, o: null }
        } else if (!(p in next)) {
          // kafkajs resolved without a result for this partition: the record
          // was dropped (kafkajs skips partitions missing from its metadata).
          results[start + i] = { p, o: null, dropped: true }
        } else {
          results[start + i] = { p, o: next[p]++ }
        }
      }
    }
    return results
  } finally {
    await producer.disconnect()
  }
}

// kafkajs consumes only through a consumer group: a fresh group per call,
// seeking each partition to the requested offset.
async function consume (req, kafka, start, counts, reset, onIdle) {
  const consumer = kafka.consumer({
    groupId: `skiff-compat-${process.pid}-${Date.now()}`,
    maxWaitTimeInMs: 200,
    sessionTimeout: 10000,
    rebalanceTimeout: 10000,
    heartbeatInterval: 1000,
    retry: { retries: 5 }
  })
  const out = []
  const got = {}
  let total = 0
  for (const p of Object.keys(counts)) total += counts[p]
  let n = 0
  let done
  const finished = new Promise((resolve) => { done = resolve })
  await consumer.connect()
  try {
    await consumer.subscribe({ topic: req.topic, fromBeginning: reset === 'earliest' })
    let joined
    const joinedP = new Promise((resolve) => { joined = resolve })
    // Seek right after run() and again after every (re)join: a consumer that
    // crashed and restarted (e.g. "coordinator is loading" after a broker
    // restart) forgets its seeks, and seek() throws while it restarts.
    const seekAll = () => {
      for (const [p, o] of Object.entries(start)) {
        if (got[p]) continue
        try {
          consumer.seek({ topic: req.topic, partition: Number(p), offset: String(o) })
        } catch (e) {
          // not initialized yet: the GROUP_JOIN that follows seeks again
        }
      }
    }
    consumer.on(consumer.events.GROUP_JOIN, () => { seekAll(); joined() })
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        if (!(partition in counts)) return
        got[partition] = got[partition] || 0
        if (got[partition] < counts[partition]) {
          got[partition]++
          n++
          out.push(toRecord(partition, message))
          if (n >= total) done()
        }
      }
    })
    seekAll()
    if (total === 0) done()
    const deadline = Date.now() + req.timeout_ms - 1000
    const timer = setTimeout(done, Math.max(0, deadline - Date.now()))
    if (onIdle) {
      await Promise.race([joinedP, finished])
      await onIdle()
    }
    await finished
    clearTimeout(timer)
    return { records: out, complete: n >= total }
  } finally {
    await consumer.disconnect()
  }
}

// Joins req.group, consumes until req.expect records (then settle_ms more to
// catch extras), commits what it consumed and leaves: a new member of the
// group must resume right after.
async function groupConsume (req, kafka) {
  const consumer = kafka.consumer({
    groupId: req.group,
    maxWaitTimeInMs: 200,
    sessionTimeout: 10000,
    rebalanceTimeout: 10000,
    heartbeatInterval: 1000,
    retry: { retries: 5 }
  })
  const out = []
  const next = {}
  let done
  const finished = new Promise((resolve) => { done = resolve })
  let settle = null
  await consumer.connect()
  try {
    await consumer.subscribe({ topic: req.topic, fromBeginning: true })
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        out.push(toRecord(partition, message))
        next[partition] = Math.max(next[partition] ?? 0, Number(message.offset) + 1)
        if (out.length >= req.expect && settle === null) settle = setTimeout(done, req.settle_ms ?? 1000)
      }
    })
    const timer = setTimeout(done, Math.max(0, req.timeout_ms - 2000))
    await finished
    clearTimeout(timer)
    if (settle !== null) clearTimeout(settle)
    const offsets = Object.entries(next).map(([p, o]) => ({ topic: req.topic, partition: Number(p), offset: String(o) }))
    if (offsets.length) await consumer.commitOffsets(offsets)
    return { records: out }
  } finally {
    await consumer.disconnect()
  }
}

// txn_send_offsets: three transactions of one transactional producer, each
// with sendOffsets for req.group on req.in_topic: commit, abort, commit. The
// group's committed offsets are read back (admin.fetchOffsets) after each.
// req.txns: [{records: [{p, v}], offsets: {partition: offset}, commit: bool,
// expect: {partition: offset}}]. The markers that make a commit's offsets
// visible are written after EndTxn is answered (as Kafka's coordinator
// does), and kafkajs's OffsetFetch cannot ask for stable offsets, so the
// offsets are read until they equal `expect`, for up to 10 s; the last read
// is returned either way.
async function readOffsetsUntil (admin, req, expect) {
  const deadline = Date.now() + 10000
  for (;;) {
    const fetched = await admin.fetchOffsets({ groupId: req.group, topics: [req.in_topic] })
    const offsets = {}
    for (const p of fetched[0].partitions) offsets[p.partition] = Number(p.offset)
    const settled = !expect || Object.entries(expect).every(([p, o]) => offsets[p] === o)
    if (settled || Date.now() >= deadline) return offsets
    await sleep(50)
  }
}

async function txnSendOffsets (req, kafka) {
  const producer = kafka.producer({
    transactionalId: req.txn_id, idempotent: true, maxInFlightRequests: 1, transactionTimeout: 10000
  })
  const admin = kafka.admin()
  await producer.connect()
  await admin.connect()
  try {
    const seen = []
    for (const t of req.txns) {
      const txn = await producer.transaction()
      await txn.send({ topic: req.topic, messages: t.records.map((r) => ({ partition: r.p, value: unb64(r.v) })) })
      const partitions = Object.entries(t.offsets).map(([p, o]) => ({ partition: Number(p), offset: String(o) }))
      await txn.sendOffsets({ consumerGroupId: req.group, topics: [{ topic: req.in_topic, partitions }] })
      if (t.commit) await txn.commit()
      else await txn.abort()
      seen.push(await readOffsetsUntil(admin, req, t.expect))
    }
    return { offsets: seen }
  } finally {
    await admin.disconnect()
    await producer.disconnect()
  }
}

async function run (req) {
  const kafka = client(req)
  switch (req.op) {
    case 'metadata': {
      const admin = kafka.admin()
      await admin.connect()
      try {
        const cluster = await admin.describeCluster()
        const brokers = cluster.brokers.map((b) => ({ id: b.nodeId, host: b.host, port: b.port }))
        const md = await admin.fetchTopicMetadata(req.topics ? { topics: req.topics } : undefined)
        const topics = {}
        for (const t of md.topics) topics[t.name] = { partitions: t.partitions.length, error: null }
        return { brokers, topics }
      } finally {
        await admin.disconnect()
      }
    }
    case 'produce':
      if (req.defaults) {
        const producer = kafka.producer()
        await producer.connect()
        try {
          const meta = await producer.send({ topic: req.topic, messages: req.records.map((r) => ({ key: unb64(r.k), value: unb64(r.v), partition: r.p ?? undefined })) })
          return { results: req.records.map(() => ({ p: meta[0].partition, o: null })) }
        } finally { await producer.disconnect() }
      }
      return { results: await produce(req, kafka, req.records) }
    case 'consume':
      return consume(req, kafka, req.start, req.counts, 'earliest')
    case 'group_consume':
      return groupConsume(req, kafka)
    case 'txn_send_offsets':
      return txnSendOffsets(req, kafka)
    case 'consume_reset': {
      const p = req.partition
      const onIdle = req.reset === 'latest'
        ? async () => {
          await sleep(req.settle_ms ?? 2000)
          const res = await produce(req, kafka, [{ p, k: null, v: b64(Buffer.from('marker')), h: [] }])
          if (res[0].error) throw new Error('marker: ' + res[0].error)
        }
        : null
      return consume(req, kafka, { [p]: req.offset }, { [p]: req.expect }, req.reset, onIdle)
    }
    case 'list_offsets': {
      const admin = kafka.admin()
      await admin.connect()
      try {
        const offsets = {}
        if (req.spec === 'earliest' || req.spec === 'latest') {
          for (const o of await admin.fetchTopicOffsets(req.topic)) {
            if (req.partitions.includes(o.partition)) offsets[o.partition] = Number(req.spec === 'earliest' ? o.low : o.high)
          }
        } else {
          for (const o of await admin.fetchTopicOffsetsByTimestamp(req.topic, req.timestamp)) {
            if (req.partitions.includes(o.partition)) offsets[o.partition] = Number(o.offset)
          }
        }
        return { offsets }
      } finally {
        await admin.disconnect()
      }
    }
    case 'admin_ops': {
      // The admin operations of test_admin.py, in order; returns what each saw.
      const admin = kafka.admin()
      await admin.connect()
      try {
        const t = req.topic
        const seen = {}
        seen.created = await admin.createTopics({ topics: [{ topic: t, numPartitions: 2, replicationFactor: 1, configEntries: [{ name: 'retention.ms', value: '333333' }] }], waitForLeaders: true })
        seen.listed = (await admin.listTopics()).includes(t)
        const describe = async () => {
          const r = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: 2, name: t }] })
          const out = {}
          for (const e of r.resources[0].configEntries) out[e.configName] = e.configValue
          return out
        }
        seen.configs = await describe()
        await admin.alterConfigs({ validateOnly: false, resources: [{ type: 2, name: t, configEntries: [{ name: 'retention.ms', value: '444444' }] }] })
        seen.altered = (await describe())['retention.ms']
        await admin.createPartitions({ topicPartitions: [{ topic: t, count: 3 }] })
        seen.partitions = (await admin.fetchTopicMetadata({ topics: [t] })).topics[0].partitions.length
        await produce(req, kafka, [0, 1, 2, 3, 4].map((i) => ({ p: 0, k: null, v: b64(Buffer.from('v' + i)), h: [] })))
        await admin.deleteTopicRecords({ topic: t, partitions: [{ partition: 0, offset: '3' }] })
        seen.low = Number((await admin.fetchTopicOffsets(t)).find((o) => o.partition === 0).low)
        await admin.deleteTopics({ topics: [t] })
        seen.deleted = !(await admin.listTopics()).includes(t)
        return seen
      } finally {
        await admin.disconnect()
      }
    }
  }
  throw new Error(`unknown op ${req.op}`)
}

async function main () {
  if (process.argv.length !== 3) {
    console.error('usage: node driver.js REQUEST.json')
    process.exit(2)
  }
  const req = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))
  req.timeout_ms = req.timeout_ms || 30000
  const watchdog = setTimeout(() => {
    process.stdout.write(JSON.stringify({ error: `driver timed out after ${req.timeout_ms} ms` }) + '\n', () => process.exit(0))
  }, req.timeout_ms + 3000)
  let res
  try {
    res = await run(req)
  } catch (e) {
    res = errorOf(e, true)
  }
  clearTimeout(watchdog)
  process.stdout.write(JSON.stringify(res) + '\n', () => process.exit(0))
}

main()
