{
  "targets": [
    {
      "target_name": "flock",
      "sources": ["native/flock.c"],
      "cflags": ["-Wall", "-Wextra", "-O2"]
    },
    {
      "target_name": "tether",
      "type": "executable",
      "sources": ["native/tether.c"],
      "cflags": ["-Wall", "-Wextra", "-O2"],
      "conditions": [["OS!='linux'", { "type": "none", "sources": [] }]]
    }
  ]
}
