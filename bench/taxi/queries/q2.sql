-- q2_month_range: fares over one quarter, 2024-03..05 (SUM)
SELECT count(*), sum(total_amount) FROM taxi.trips
 WHERE tpep_pickup_datetime >= TIMESTAMP '2024-03-01 00:00:00' AND tpep_pickup_datetime < TIMESTAMP '2024-06-01 00:00:00';
