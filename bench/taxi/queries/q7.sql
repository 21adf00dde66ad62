-- q7_wide: one month, June 2024 (COUNT)
SELECT count(*) FROM taxi.trips
 WHERE tpep_pickup_datetime >= TIMESTAMP '2024-06-01 00:00:00' AND tpep_pickup_datetime < TIMESTAMP '2024-07-01 00:00:00';
