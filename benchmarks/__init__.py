"""The project's benchmarks: retracing scenarios, their runner, and the results renderer."""
