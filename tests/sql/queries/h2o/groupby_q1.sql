SELECT id1, sum(v1) AS v1 FROM x GROUP BY id1;
