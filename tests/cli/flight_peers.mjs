// An Arrow Flight client independent of basalt: @grpc/grpc-js with the
// upstream Flight.proto (testdata/flight), batches decoded by apache-arrow
// and compared in nodejs-polars with what Polars reads from the tables' own
// Parquet data files. Run by flight_peers.sh against `basalt flight serve`.
//
// usage: node flight_peers.mjs URL TOKEN CHECKS.json
// CHECKS.json: {"tables": [{"path": ["taxi", "trips"], "files": [...parquet],
//               "exclude": {"column": "PULocationID", "value": 161} (optional)}],
//               "cmd": {...CMD JSON, "files": [...], "value": N},
//               "put": {"path": [...]}}
import { readFileSync } from 'node:fs';
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import { MessageReader, Utf8, tableFromArrays, tableFromIPC, tableToIPC, vectorFromArray } from 'apache-arrow';
import pl from 'nodejs-polars';

// usage 2: node flight_peers.mjs tls URL CA.pem TABLE: over TLS, the rows
// of every endpoint of TABLE, counted.
const tlsMode = process.argv[2] === 'tls';
const [url, token, checksPath] = process.argv.slice(tlsMode ? 3 : 2);
const checks = tlsMode ? null : JSON.parse(readFileSync(checksPath, 'utf8'));
const root = new URL('../../', import.meta.url).pathname;
const def = protoLoader.loadSync(root + 'testdata/flight/Flight.proto',
  { keepCase: true, longs: String, enums: String, defaults: true });
const proto = grpc.loadPackageDefinition(def).arrow.flight.protocol;
const options = { 'grpc.max_receive_message_length': 256 << 20, 'grpc.max_send_message_length': 256 << 20 };
const creds = tlsMode ? grpc.credentials.createSsl(readFileSync(token)) : grpc.credentials.createInsecure();
const client = new proto.FlightService(url, creds, options);
const meta = (t) => { const m = new grpc.Metadata(); if (t) m.set('authorization', `Bearer ${t}`); return m; };
const auth = meta(token);

let failures = 0;
const fail = (msg) => { failures++; console.log(`FAIL ${msg}`); };
const ok = (msg) => console.log(`ok ${msg}`);

const unary = (method, req, md = auth) => new Promise((resolve, reject) =>
  client[method](req, md, (err, res) => (err ? reject(err) : resolve(res))));
const collect = (call) => new Promise((resolve, reject) => {
  const out = [];
  call.on('data', (d) => out.push(d));
  call.on('error', reject);
  call.on('end', () => resolve(out));
});

// FlightData messages back into an IPC stream (continuation, padded
// metadata length, metadata, body, then the end-of-stream marker).
function ipcStream(datas) {
  const parts = [];
  for (const d of datas) {
    const h = d.data_header;
    const padded = (h.length + 7) & ~7;
    const prefix = Buffer.alloc(8);
    prefix.writeUInt32LE(0xFFFFFFFF, 0);
    prefix.writeInt32LE(padded, 4);
    parts.push(prefix, h, Buffer.alloc(padded - h.length), d.data_body);
  }
  parts.push(Buffer.from([0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]));
  return Buffer.concat(parts);
}

const doGet = async (ticket) => ipcStream(await collect(client.DoGet({ ticket }, auth)));

const canon = (v) => JSON.stringify(v, (k, x) => {
  if (typeof x === 'bigint') return x.toString();
  if (x instanceof Uint8Array) return Buffer.from(x).toString('hex');
  if (typeof x === 'number' && Number.isNaN(x)) return 'NaN';
  return x;
});
// Rows of a Polars frame as sorted canonical strings (row order across
// endpoints is not defined).
const rowsOf = (df) => df.toRecords().map(canon).sort();
const sameRows = (a, b) => a.length === b.length && a.every((r, i) => r === b[i]);
const firstDiff = (a, b) => { for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return `${a[i]} vs ${b[i]}`; return ''; };

// What Polars reads from the data files, columns cast to the Flight frame's types.
function reference(files, like, exclude) {
  let df = pl.concat(files.map((f) => pl.readParquet(f)), { how: 'vertical' });
  if (exclude) df = df.filter(pl.col(exclude.column).neq(exclude.value));
  return df.select(...like.columns.map((c) => pl.col(c).cast(like.getColumn(c).dtype)));
}

async function checkTable(t) {
  const name = t.path.join('.');
  const info = await unary('GetFlightInfo', { type: 'PATH', path: t.path });
  if (info.endpoint.length < 1) return fail(`${name}: no endpoints`);
  // Every endpoint at once: grpc-js multiplexes the calls on one connection.
  const parts = await Promise.all(info.endpoint.map((e) => doGet(e.ticket.ticket)));
  const frames = parts.map((b) => pl.readIPCStream(b));
  const whole = pl.concat(frames, { how: 'vertical' });
  const schemaBytes = Buffer.from(info.schema);
  const fromInfo = tableFromIPC(Buffer.concat([schemaBytes, Buffer.from([0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0])]));
  const fromGet = tableFromIPC(parts[0]);
  if (String(fromInfo.schema.fields.map(String)) !== String(fromGet.schema.fields.map(String)))
    fail(`${name}: FlightInfo schema ${fromInfo.schema.fields} differs from DoGet's ${fromGet.schema.fields}`);
  const ref = reference(t.files, whole, t.exclude);
  const a = rowsOf(whole), b = rowsOf(ref);
  if (!sameRows(a, b)) fail(`${name}: ${a.length} rows over ${parts.length} endpoints, Polars reads ${b.length} from the files: ${firstDiff(a, b)}`);
  else ok(`${name}: ${a.length} rows over ${parts.length} parallel DoGets equal Polars' read of the data files`);
  if (info.total_records !== '-1' && Number(info.total_records) !== a.length)
    fail(`${name}: total_records ${info.total_records}, ${a.length} rows`);
  // One ticket for the whole scan: the same rows as the endpoints together.
  const all = rowsOf(pl.readIPCStream(await doGet(Buffer.from(JSON.stringify({ table: name })))));
  if (!sameRows(all, a)) fail(`${name}: the whole-table ticket gives ${all.length} rows, the endpoints ${a.length}`);
  else ok(`${name}: whole-table DoGet equals the union of the endpoints`);
  // GetSchema agrees with GetFlightInfo.
  const sr = await unary('GetSchema', { type: 'PATH', path: t.path });
  if (!Buffer.from(sr.schema).equals(schemaBytes)) fail(`${name}: GetSchema differs from FlightInfo.schema`);
  return a.length;
}

async function checkCmd(c) {
  const cmd = { table: c.table, columns: c.columns, filter: c.filter };
  const info = await unary('GetFlightInfo', { type: 'CMD', cmd: Buffer.from(JSON.stringify(cmd)) });
  const parts = await Promise.all(info.endpoint.map((e) => doGet(e.ticket.ticket)));
  const got = pl.concat(parts.map((b) => pl.readIPCStream(b)), { how: 'vertical' });
  if (String(got.columns) !== String(c.columns)) fail(`CMD: columns ${got.columns}, asked ${c.columns}`);
  let ref = pl.concat(c.files.map((f) => pl.readParquet(f)), { how: 'vertical' })
    .filter(pl.col(c.column).eq(c.value)).select(...c.columns);
  ref = ref.select(...c.columns.map((x) => pl.col(x).cast(got.getColumn(x).dtype)));
  const a = rowsOf(got), b = rowsOf(ref);
  if (!sameRows(a, b)) fail(`CMD ${c.filter}: ${a.length} rows, Polars ${b.length}: ${firstDiff(a, b)}`);
  else ok(`CMD ${JSON.stringify(cmd)}: ${a.length} rows over ${parts.length} endpoints equal Polars' filter`);
}

// DoPut: a table built here, framed from apache-arrow's own IPC stream.
// With `dictionary`, `name` is dictionary-encoded (apache-arrow's default for
// strings) in two batches, each with its own dictionary: the server decodes
// the second stream's dictionaries (a replacement or a delta) and stores values.
async function checkPut(p, dictionary) {
  const n = 5000;
  const part = (lo, hi) => {
    const names = Array.from({ length: hi - lo }, (_, k) => ((lo + k) % 13 ? `row-${(lo + k) % (dictionary ? 31 + lo : 97)}` : null));
    return tableFromArrays({
      id: BigInt64Array.from({ length: hi - lo }, (_, k) => BigInt(lo + k)),
      // Plain strings unless asked (tableFromArrays dictionary-encodes them).
      name: dictionary ? names : vectorFromArray(names, new Utf8()),
      score: Float64Array.from({ length: hi - lo }, (_, k) => (lo + k) / 7),
    });
  };
  const sent = dictionary ? part(0, n / 2).concat(part(n / 2, n)) : part(0, n);
  if (dictionary && sent.schema.fields[1].type.toString().indexOf('Dictionary') < 0) throw new Error(`name is ${sent.schema.fields[1].type}, not dictionary-encoded`);
  const bytes = tableToIPC(sent, 'stream');
  // Split the stream into messages: metadata bytes by the framing, bodies by
  // apache-arrow's message reader.
  const reader = new MessageReader(bytes);
  const datas = [];
  let at = 0;
  for (;;) {
    const m = reader.readMessage();
    if (!m) break;
    const dv = new DataView(bytes.buffer, bytes.byteOffset);
    const cont = dv.getUint32(at, true);
    const len = dv.getInt32(at + 4, true);
    if (cont !== 0xFFFFFFFF) throw new Error('unexpected framing');
    const header = Buffer.from(bytes.subarray(at + 8, at + 8 + len));
    const body = Buffer.from(reader.readMessageBody(m.bodyLength));
    at += 8 + len + m.bodyLength;
    datas.push({ data_header: header, data_body: body });
  }
  datas[0].flight_descriptor = { type: 'PATH', path: p.path };
  const call = client.DoPut(auth);
  const results = collect(call);
  for (const d of datas) call.write(d);
  call.end();
  const res = await results;
  const summary = JSON.parse(Buffer.from(res[0].app_metadata).toString());
  if (summary.rows !== n) fail(`DoPut: PutResult says ${summary.rows} rows, sent ${n}`);
  const info = await unary('GetFlightInfo', { type: 'PATH', path: p.path });
  const parts = await Promise.all(info.endpoint.map((e) => doGet(e.ticket.ticket)));
  const back = pl.concat(parts.map((b) => pl.readIPCStream(b)), { how: 'vertical' });
  const a = rowsOf(back), b = rowsOf(pl.readIPCStream(Buffer.from(bytes)));
  if (!sameRows(a, b)) fail(`DoPut round trip: ${a.length} rows back of ${b.length}: ${firstDiff(a, b)}`);
  else ok(`DoPut${dictionary ? ' (dictionary-encoded strings, two dictionaries)' : ''}: ${n} rows appended (snapshot ${summary.snapshot_id}) and read back equal`);
}

// Bad requests get gRPC status codes, and the server keeps serving.
async function checkErrors() {
  const expectCode = async (what, code, p) => {
    try { await p; fail(`${what}: succeeded`); } catch (e) {
      if (e.code !== code) fail(`${what}: code ${e.code} (${e.details}), want ${code}`);
      else ok(`${what}: ${grpc.status[code]} "${e.details}"`);
    }
  };
  await expectCode('unknown table', grpc.status.NOT_FOUND,
    unary('GetFlightInfo', { type: 'PATH', path: ['nope', 'missing'] }));
  await expectCode('malformed ticket', grpc.status.INVALID_ARGUMENT, doGet(Buffer.from('{not json')));
  await expectCode('CMD with an unknown column', grpc.status.NOT_FOUND,
    unary('GetFlightInfo', { type: 'CMD', cmd: Buffer.from('{"table":"taxi.trips","columns":["nope"]}') }));
  await expectCode('CMD with a bad filter', grpc.status.INVALID_ARGUMENT,
    unary('GetFlightInfo', { type: 'CMD', cmd: Buffer.from('{"table":"taxi.trips","filter":"a >>> 3"}') }));
  await expectCode('a ticket for a file not in the table', grpc.status.NOT_FOUND,
    doGet(Buffer.from('{"table":"taxi.trips","file":"/nowhere.parquet","start":4,"length":10}')));
  const ex = client.DoExchange(auth);
  const exchanged = collect(ex);
  ex.end();
  await expectCode('DoExchange', grpc.status.UNIMPLEMENTED, exchanged);
  if (token) {
    await expectCode('no token', grpc.status.UNAUTHENTICATED,
      unary('GetFlightInfo', { type: 'PATH', path: ['taxi', 'trips'] }, meta(null)));
    await expectCode('wrong token', grpc.status.UNAUTHENTICATED,
      collect(client.ListActions({}, meta('wrong'))));
    const hs = client.Handshake(meta(null));
    const got = collect(hs);
    hs.write({ protocol_version: 0, payload: Buffer.from(token) });
    hs.end();
    const r = await got;
    if (Buffer.from(r[0].payload).toString() !== token) fail('Handshake did not return the token');
    else ok('Handshake with the token returns it');
  }
}

if (tlsMode) {
  try {
    const info = await new Promise((resolve, reject) => client.GetFlightInfo(
      { type: 'PATH', path: checksPath.split('.') }, new grpc.Metadata(), (e, r) => (e ? reject(e) : resolve(r))));
    const parts = await Promise.all(info.endpoint.map(async (e) =>
      ipcStream(await collect(client.DoGet({ ticket: e.ticket.ticket }, new grpc.Metadata())))));
    console.log(`rows ${parts.reduce((n, b) => n + tableFromIPC(b).numRows, 0)} over TLS`);
    process.exit(0);
  } catch (e) {
    console.log(`FAIL TLS: ${e.stack || e}`);
    process.exit(1);
  }
}
try {
  const listed = await collect(client.ListFlights({}, auth));
  const names = listed.map((i) => i.flight_descriptor.path.join('.')).sort();
  const want = checks.tables.map((t) => t.path.join('.'));
  for (const w of want) if (!names.includes(w)) fail(`ListFlights lacks ${w} (has ${names})`);
  ok(`ListFlights: ${names.join(', ')}`);
  const actions = await collect(client.ListActions({}, auth));
  if (!actions.some((a) => a.type === 'tables')) fail('ListActions lacks "tables"');
  const res = await collect(client.DoAction({ type: 'tables', body: Buffer.alloc(0) }, auth));
  if (res.map((r) => Buffer.from(r.body).toString()).sort().join() !== names.join()) fail('DoAction tables differs from ListFlights');
  for (const t of checks.tables) await checkTable(t);
  if (checks.cmd) await checkCmd(checks.cmd);
  if (checks.put) await checkPut(checks.put, false);
  if (checks.put_dictionary) await checkPut(checks.put_dictionary, true);
  await checkErrors();
  // Still serving after every bad request.
  await collect(client.ListActions({}, auth));
} catch (e) {
  fail(`unexpected: ${e.stack || e}`);
}
client.close();
console.log(failures ? `${failures} failures` : 'all Flight checks passed');
process.exit(failures ? 1 : 0);
