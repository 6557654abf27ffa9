// Work in progress: the benchmark program arrives with the harness.
print("stream-bench: not built yet")
