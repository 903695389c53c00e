{
  "targets": [
    {
      "target_name": "flock",
      "sources": ["native/flock.c"],
      "cflags": ["-Wall", "-Wextra", "-O2"]
    }
  ]
}
