// The Schema Registry with @kafkajs/confluent-schema-registry and kafkajs
// (test_schema_registry.py, the kafkajs run): registers an Avro schema,
// produces three values it encodes (Confluent's wire format), consumes and
// decodes them, then tries an incompatible registration. Prints one JSON
// line: {id, latestId, got, incompatible}; exit 1 on any error. Bounded:
// the consume gives up after 30 s.
//   node schema_registry.js BOOTSTRAP REGISTRY_URL
'use strict';
const { Kafka, logLevel } = require('kafkajs');
const { SchemaRegistry, SchemaType } = require('@kafkajs/confluent-schema-registry');

const [bootstrap, url] = process.argv.slice(2);
const subject = 'js-orders-value';
const schema = {
  type: 'record', name: 'Order', namespace: 'shop',
  fields: [{ name: 'id', type: 'long' }, { name: 'item', type: 'string' }],
};

async function consume(kafka, registry, n) {
  const consumer = kafka.consumer({ groupId: 'sr-js-g' });
  await consumer.connect();
  await consumer.subscribe({ topic: 'js-orders', fromBeginning: true });
  const got = [];
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no records within 30 s')), 30000);
    consumer.run({
      eachMessage: async ({ message }) => {
        got.push(await registry.decode(message.value));
        if (got.length === n) { clearTimeout(timer); resolve(); }
      },
    });
  });
  await consumer.disconnect();
  return got;
}

async function main() {
  const registry = new SchemaRegistry({ host: url });
  const { id } = await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(schema) }, { subject });
  const kafka = new Kafka({ clientId: 'sr-js', brokers: [bootstrap], logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  const values = [1, 2, 3].map((i) => ({ id: i, item: `thing-${i}` }));
  const messages = await Promise.all(values.map(async (v) => ({ value: await registry.encode(id, v) })));
  await producer.send({ topic: 'js-orders', messages });
  await producer.disconnect();
  const got = await consume(kafka, registry, values.length);
  const latestId = await registry.getLatestSchemaId(subject);
  let incompatible = null;
  const changed = { ...schema, fields: [{ name: 'id', type: 'long' }, { name: 'owner', type: 'string' }] };
  try {
    await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(changed) }, { subject });
  } catch (e) {
    incompatible = String(e.status || e.message);
  }
  const out = got.map((g) => ({ id: Number(g.id), item: g.item })).sort((a, b) => a.id - b.id);
  console.log(JSON.stringify({ id, latestId, got: out, incompatible }));
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
