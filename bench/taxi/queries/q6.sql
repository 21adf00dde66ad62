-- q6_zone_revenue: revenue by pickup zone, 2024 (ZONE_SUM, top 10 picked by the caller)
SELECT "PULocationID", count(*), sum(total_amount) FROM taxi.trips
 WHERE tpep_pickup_datetime >= TIMESTAMP '2024-01-01 00:00:00' AND tpep_pickup_datetime < TIMESTAMP '2025-01-01 00:00:00' GROUP BY 1;
