// The H2O db-benchmark queries of tests/sql/queries/h2o as nodejs-polars
// lazy frames over the same Parquet files, as the benchmark's own Polars
// solution writes them, returning rows shaped like the SQL result (its
// columns in its order). Where Polars' defaults differ from SQL the
// expression says so: a sum over no non-NULL value is NULL in SQL and 0 in
// Polars, so sums go through `sqlSum`.
//   polarsH2OFrame(pl, name, dir) -> the lazy frame; dir holds x.parquet
//   (group-by) or x, small, medium, big .parquet (join); h2oPolarsNames lists
//   the queries.
import path from 'node:path';

export const h2oPolarsNames = [
  'groupby_q1', 'groupby_q2', 'groupby_q3', 'groupby_q4', 'groupby_q5', 'groupby_q6', 'groupby_q7', 'groupby_q8',
  'groupby_q9', 'groupby_q10', 'join_q1', 'join_q2', 'join_q3', 'join_q4', 'join_q5'];

export function polarsH2OFrame(pl, name, dir) {
  const scan = t => pl.scanParquet(path.join(dir, `${t}.parquet`));
  const c = n => pl.col(n);
  const sqlSum = n => pl.when(c(n).count().gt(0)).then(c(n).cast(pl.Float64).sum()).otherwise(pl.lit(null)).alias(n);
  const intSum = n => pl.when(c(n).count().gt(0)).then(c(n).cast(pl.Int64).sum()).otherwise(pl.lit(null)).alias(n);
  const x = () => scan('x');
  const xCols = ['id1', 'id2', 'id3', 'id4', 'id5', 'id6', 'v1'];
  let lf;
  switch (name) {
    case 'groupby_q1': lf = x().groupBy('id1').agg(intSum('v1')); break;
    case 'groupby_q2': lf = x().groupBy(['id1', 'id2']).agg(intSum('v1')); break;
    case 'groupby_q3': lf = x().groupBy('id3').agg(intSum('v1'), c('v3').mean().alias('v3')); break;
    case 'groupby_q4': lf = x().groupBy('id4').agg(c('v1').mean().alias('v1'), c('v2').mean().alias('v2'), c('v3').mean().alias('v3')); break;
    case 'groupby_q5': lf = x().groupBy('id6').agg(intSum('v1'), intSum('v2'), sqlSum('v3')); break;
    case 'groupby_q6': lf = x().groupBy(['id4', 'id5']).agg(c('v3').median().alias('median_v3'), c('v3').std().alias('sd_v3')); break;
    case 'groupby_q7': lf = x().groupBy('id3').agg(c('v1').max().cast(pl.Int64).sub(c('v2').min().cast(pl.Int64)).alias('range_v1_v2')); break;
    case 'groupby_q8': lf = x().filter(c('v3').isNotNull()).groupBy('id6')
      .agg(c('v3').sort({ descending: true }).head(2).alias('largest2_v3')).explode('largest2_v3'); break;
    // corr() over the rows where both are non-NULL, as SQL's corr, and
    // NULL (not NaN) when there is no such row.
    case 'groupby_q9': {
      const both = c('v1').isNotNull().and(c('v2').isNotNull());
      const r = pl.pearsonCorr(pl.when(both).then(c('v1').cast(pl.Float64)).otherwise(pl.lit(null)),
        pl.when(both).then(c('v2').cast(pl.Float64)).otherwise(pl.lit(null)));
      lf = x().groupBy(['id2', 'id4']).agg(pl.when(both.cast(pl.Int64).sum().gt(0)).then(r.pow(2)).otherwise(pl.lit(null)).alias('r2'));
      break;
    }
    case 'groupby_q10': lf = x().groupBy(['id1', 'id2', 'id3', 'id4', 'id5', 'id6'])
      .agg(sqlSum('v3'), pl.len().alias('count')); break;
    case 'join_q1': lf = x().join(scan('small'), { on: 'id1', suffix: '_right' })
      .select(...xCols, c('id4_right').alias('small_id4'), 'v2'); break;
    case 'join_q2':
    case 'join_q3': lf = x().join(scan('medium'), { on: 'id2', how: name === 'join_q3' ? 'left' : 'inner', suffix: '_right' })
      .select(...xCols, c('id1_right').alias('medium_id1'), c('id4_right').alias('medium_id4'), c('id5_right').alias('medium_id5'), 'v2'); break;
    case 'join_q4': lf = x().join(scan('medium'), { on: 'id5', suffix: '_right' })
      .select(...xCols, c('id1_right').alias('medium_id1'), c('id2_right').alias('medium_id2'), c('id4_right').alias('medium_id4'), 'v2'); break;
    case 'join_q5': lf = x().join(scan('big'), { on: 'id3', suffix: '_right' })
      .select(...xCols, c('id1_right').alias('big_id1'), c('id2_right').alias('big_id2'), c('id4_right').alias('big_id4'),
        c('id5_right').alias('big_id5'), c('id6_right').alias('big_id6'), 'v2'); break;
    default: throw new Error(`no Polars version of ${name}`);
  }
  return lf;
}
