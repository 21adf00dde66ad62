-- q5_top_zones: busiest pickup zones (ZONE_COUNT, top 10 picked by the caller)
SELECT "PULocationID", count(*) FROM taxi.trips WHERE trip_distance > 0 GROUP BY 1;
