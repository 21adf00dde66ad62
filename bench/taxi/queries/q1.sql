-- q1_scan_count: rows with a positive trip distance (COUNT)
SELECT count(*) FROM taxi.trips WHERE trip_distance > 0;
