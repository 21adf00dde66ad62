-- q3_payment_sum: cash fares across the whole table (SUM)
SELECT count(*), sum(total_amount) FROM taxi.trips WHERE payment_type = 2;
