-- q8_selective: long card trips from JFK, zone 132 (SUM)
SELECT count(*), sum(total_amount) FROM taxi.trips WHERE "PULocationID" = 132 AND payment_type = 1 AND trip_distance > 20;
