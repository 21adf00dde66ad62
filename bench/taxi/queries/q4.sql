-- q4_tip_ratio: tip ratio on long trips (RATIO)
SELECT count(*), sum(tip_amount), sum(fare_amount) FROM taxi.trips WHERE trip_distance > 10 AND fare_amount > 0;
