"""Speech evaluation: the spoken set, its voices and noise, and the speech benchmarks (issue 19)."""
