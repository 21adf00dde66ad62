// The value rules of TPC-H clause 4.2.3 checked by DuckDB over the files of
// basalt-tpchgen: column types, row counts, key sparsity, lineitems per
// order, date offsets, flag and status rules, the price formulas, partsupp
// suppliers, phone country codes and the Q16 complaint comments. Each check
// is a query that returns the number of offending rows (or a wrong count);
// the rules are written here from the spec, not from the generator.
//   node tpchgen_check.mjs DATA_DIR SF
// Prints one line per failed check and exits 1 if any failed.
import { DuckDBInstance } from '@duckdb/node-api';
import path from 'node:path';

const [dir, sfArg] = process.argv.slice(2);
const sf = Number(sfArg);
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const conn = await inst.connect();
for (const t of ['region', 'nation', 'supplier', 'customer', 'part', 'partsupp', 'orders', 'lineitem'])
  await conn.run(`CREATE VIEW ${t} AS SELECT * FROM read_parquet('${path.join(dir, t + '.parquet')}')`);

const n = base => Math.floor(base * sf + 1e-9);
const types = {
  region: 'r_regionkey INTEGER, r_name VARCHAR, r_comment VARCHAR',
  nation: 'n_nationkey INTEGER, n_name VARCHAR, n_regionkey INTEGER, n_comment VARCHAR',
  supplier: 's_suppkey BIGINT, s_name VARCHAR, s_address VARCHAR, s_nationkey INTEGER, s_phone VARCHAR, s_acctbal DECIMAL(15,2), s_comment VARCHAR',
  customer: 'c_custkey BIGINT, c_name VARCHAR, c_address VARCHAR, c_nationkey INTEGER, c_phone VARCHAR, c_acctbal DECIMAL(15,2), c_mktsegment VARCHAR, c_comment VARCHAR',
  part: 'p_partkey BIGINT, p_name VARCHAR, p_mfgr VARCHAR, p_brand VARCHAR, p_type VARCHAR, p_size INTEGER, p_container VARCHAR, p_retailprice DECIMAL(15,2), p_comment VARCHAR',
  partsupp: 'ps_partkey BIGINT, ps_suppkey BIGINT, ps_availqty BIGINT, ps_supplycost DECIMAL(15,2), ps_comment VARCHAR',
  orders: 'o_orderkey BIGINT, o_custkey BIGINT, o_orderstatus VARCHAR, o_totalprice DECIMAL(15,2), o_orderdate DATE, o_orderpriority VARCHAR, o_clerk VARCHAR, o_shippriority INTEGER, o_comment VARCHAR',
  lineitem: 'l_orderkey BIGINT, l_partkey BIGINT, l_suppkey BIGINT, l_linenumber BIGINT, l_quantity DECIMAL(15,2), l_extendedprice DECIMAL(15,2), l_discount DECIMAL(15,2), l_tax DECIMAL(15,2), l_returnflag VARCHAR, l_linestatus VARCHAR, l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE, l_shipinstruct VARCHAR, l_shipmode VARCHAR, l_comment VARCHAR',
};
const S = n(10000);
// [name, query, expected value]
const checks = [
  ['row counts', `SELECT [(SELECT count(*) FROM region), (SELECT count(*) FROM nation), (SELECT count(*) FROM supplier),
     (SELECT count(*) FROM customer), (SELECT count(*) FROM part), (SELECT count(*) FROM partsupp),
     (SELECT count(*) FROM orders)]::VARCHAR`, `[5, 25, ${S}, ${n(150000)}, ${n(200000)}, ${4 * n(200000)}, ${n(1500000)}]`],
  ['keys dense from 1', `SELECT count(*) FROM (SELECT s_suppkey k, row_number() OVER (ORDER BY s_suppkey) r FROM supplier
     UNION ALL SELECT c_custkey, row_number() OVER (ORDER BY c_custkey) FROM customer
     UNION ALL SELECT p_partkey, row_number() OVER (ORDER BY p_partkey) FROM part) WHERE k <> r`, 0],
  ['orderkeys unique, 8 of every 32 used', `SELECT count(*) - count(DISTINCT o_orderkey) + count(*) FILTER (WHERE o_orderkey % 32 >= 8 OR o_orderkey < 1) FROM orders`, 0],
  ['orderkeys sparse over 4x the range', `SELECT max(o_orderkey) BETWEEN 4 * count(*) - 32 AND 4 * count(*) + 32 FROM orders`, true],
  ['no orders from custkeys divisible by 3', `SELECT count(*) FROM orders WHERE o_custkey % 3 = 0 OR o_custkey NOT BETWEEN 1 AND ${n(150000)}`, 0],
  ['1..7 lineitems per order, numbered 1..n', `SELECT count(*) FROM (SELECT l_orderkey, count(*) c, min(l_linenumber) lo, max(l_linenumber) hi
     FROM lineitem GROUP BY 1) WHERE c NOT BETWEEN 1 AND 7 OR lo <> 1 OR hi <> c`, 0],
  ['every order has lineitems', `SELECT count(*) FROM orders ANTI JOIN lineitem ON l_orderkey = o_orderkey`, 0],
  ['order dates', `SELECT count(*) FROM orders WHERE o_orderdate NOT BETWEEN DATE '1992-01-01' AND DATE '1998-12-31' - 151`, 0],
  ['lineitem date offsets', `SELECT count(*) FROM lineitem JOIN orders ON l_orderkey = o_orderkey WHERE
     l_shipdate - o_orderdate NOT BETWEEN 1 AND 121 OR l_commitdate - o_orderdate NOT BETWEEN 30 AND 90
     OR l_receiptdate - l_shipdate NOT BETWEEN 1 AND 30`, 0],
  ['returnflag and linestatus rules', `SELECT count(*) FROM lineitem WHERE
     (l_receiptdate <= DATE '1995-06-17' AND l_returnflag NOT IN ('R', 'A')) OR (l_receiptdate > DATE '1995-06-17' AND l_returnflag <> 'N')
     OR l_linestatus <> CASE WHEN l_shipdate > DATE '1995-06-17' THEN 'O' ELSE 'F' END`, 0],
  ['orderstatus rule', `SELECT count(*) FROM orders JOIN (SELECT l_orderkey, bool_and(l_linestatus = 'F') f, bool_and(l_linestatus = 'O') o
     FROM lineitem GROUP BY 1) ON l_orderkey = o_orderkey WHERE o_orderstatus <> CASE WHEN f THEN 'F' WHEN o THEN 'O' ELSE 'P' END`, 0],
  ['quantity, discount, tax ranges', `SELECT count(*) FROM lineitem WHERE l_quantity NOT IN (SELECT range FROM range(1, 51))
     OR l_discount NOT BETWEEN 0 AND 0.10 OR l_tax NOT BETWEEN 0 AND 0.08`, 0],
  ['retail price formula', `SELECT count(*) FROM part WHERE p_retailprice * 100 <> 90000 + (p_partkey // 10) % 20001 + 100 * (p_partkey % 1000)`, 0],
  ['extendedprice = quantity * retailprice', `SELECT count(*) FROM lineitem JOIN part ON l_partkey = p_partkey WHERE l_extendedprice <> l_quantity * p_retailprice`, 0],
  ['totalprice = sum(extendedprice * (1 + tax) * (1 - discount))', `SELECT count(*) FROM orders JOIN (SELECT l_orderkey,
     sum(l_extendedprice * (1 + l_tax) * (1 - l_discount)) t FROM lineitem GROUP BY 1) ON l_orderkey = o_orderkey
     WHERE abs(o_totalprice - t) > 0.005`, 0],
  ['partsupp suppliers', `SELECT count(*) FROM (SELECT ps_partkey, list_sort(list(ps_suppkey)) s FROM partsupp GROUP BY 1)
     JOIN (SELECT p_partkey, list_sort(list((p_partkey + i * (${S} // 4 + (p_partkey - 1) // ${S})) % ${S} + 1)) f
     FROM part, range(4) t(i) GROUP BY 1) ON ps_partkey = p_partkey WHERE s <> f`, 0],
  ['lineitem supplier is one of its part\'s', `SELECT count(*) FROM lineitem ANTI JOIN partsupp ON l_partkey = ps_partkey AND l_suppkey = ps_suppkey`, 0],
  ['phones: country code nationkey + 10', `SELECT count(*) FROM (SELECT c_phone p, c_nationkey k FROM customer UNION ALL SELECT s_phone, s_nationkey FROM supplier)
     WHERE NOT regexp_full_match(p, '\\d\\d-\\d{3}-\\d{3}-\\d{4}') OR p[1:2]::INT <> k + 10 OR k NOT BETWEEN 0 AND 24`, 0],
  ['p_name: five distinct colors', `SELECT count(*) FROM part WHERE len(list_distinct(string_split(p_name, ' '))) <> 5`, 0],
  ['p_type, p_container, p_brand, p_mfgr, p_size', `SELECT count(*) FROM part WHERE NOT regexp_full_match(p_type,
     '(STANDARD|SMALL|MEDIUM|LARGE|ECONOMY|PROMO) (ANODIZED|BURNISHED|PLATED|POLISHED|BRUSHED) (TIN|NICKEL|BRASS|STEEL|COPPER)')
     OR NOT regexp_full_match(p_container, '(SM|LG|MED|JUMBO|WRAP) (CASE|BOX|BAG|JAR|PKG|PACK|CAN|DRUM)')
     OR NOT regexp_full_match(p_mfgr, 'Manufacturer#[1-5]') OR p_brand <> 'Brand#' || p_mfgr[14] || (ascii(p_brand[8]) - 48)::VARCHAR
     OR p_brand[8] NOT BETWEEN '1' AND '5' OR p_size NOT BETWEEN 1 AND 50`, 0],
  ['market segments', `SELECT count(*) FROM customer WHERE c_mktsegment NOT IN ('AUTOMOBILE', 'BUILDING', 'FURNITURE', 'MACHINERY', 'HOUSEHOLD')`, 0],
  ['complaints: SF * 5 suppliers (at least 1)', `SELECT count(*) FROM supplier WHERE s_comment LIKE '%Customer%Complaints%'`, Math.max(1, Math.round(5 * sf))],
  ['recommends: SF * 5 suppliers (at least 1)', `SELECT count(*) FROM supplier WHERE s_comment LIKE '%Customer%Recommends%'`, Math.max(1, Math.round(5 * sf))],
  ['comment lengths', `SELECT count(*) FROM (SELECT length(l_comment) n, 10 lo, 43 hi FROM lineitem UNION ALL SELECT length(o_comment), 19, 78 FROM orders
     UNION ALL SELECT length(ps_comment), 49, 198 FROM partsupp UNION ALL SELECT length(c_comment), 29, 116 FROM customer
     UNION ALL SELECT length(s_comment), 25, 100 FROM supplier UNION ALL SELECT length(p_comment), 5, 22 FROM part) WHERE n NOT BETWEEN lo AND hi`, 0],
  ['clerks', `SELECT count(*) FROM orders WHERE NOT regexp_full_match(o_clerk, 'Clerk#\\d{9}') OR o_clerk[7:]::INT NOT BETWEEN 1 AND ${Math.max(1, n(1000))}`, 0],
];
for (const [t, cols] of Object.entries(types)) {
  checks.push([`${t} column types`, `SELECT string_agg(column_name || ' ' || column_type, ', ') FROM (DESCRIBE ${t})`, cols]);
}

let failed = 0;
for (const [name, sql, want] of checks) {
  let got;
  try {
    const r = await conn.runAndReadAll(sql);
    got = r.getRowsJson()[0][0];
  } catch (e) {
    got = `error: ${String(e.message).split('\n')[0]}`;
  }
  if (String(got) !== String(want)) {
    failed++;
    console.log(`SPEC ${name}: got ${got}, want ${want}`);
  }
}
console.log(`${checks.length} generator checks, ${failed} failed`);
process.exit(failed ? 1 : 0);
