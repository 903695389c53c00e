/*
 * flock(2) for the file store's per-run lock.
 *
 * Node has no binding for flock, and the lock must be taken on a descriptor the
 * process itself holds: the kernel ties an flock to the open file description, so
 * a second open of the same lock file (in this process or another) is refused, and
 * the lock disappears with the descriptor when its holder exits or is killed.
 *
 * Built with Node-API only, so one binary loads in every Node release that has
 * Node-API 8 (Node 20 and newer) without rebuilding.
 */
#define NAPI_VERSION 8
#include <node_api.h>
#include <errno.h>
#include <sys/file.h>

/* Returns 0 when the call succeeded, otherwise the errno it failed with. */
static napi_value call_flock(napi_env env, napi_callback_info info, int op) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t fd = -1;
  napi_value result;

  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_int32(env, argv[0], &fd) != napi_ok) {
    napi_throw_type_error(env, NULL, "flock: expected a file descriptor");
    return NULL;
  }

  int rc;
  do {
    rc = flock(fd, op);
  } while (rc != 0 && errno == EINTR);

  napi_create_int32(env, rc == 0 ? 0 : errno, &result);
  return result;
}

/* Exclusive and non-blocking: a held lock fails at once with EWOULDBLOCK. */
static napi_value try_lock_exclusive(napi_env env, napi_callback_info info) {
  return call_flock(env, info, LOCK_EX | LOCK_NB);
}

static napi_value unlock(napi_env env, napi_callback_info info) {
  return call_flock(env, info, LOCK_UN);
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn, code;
  napi_create_function(env, "tryLockExclusive", NAPI_AUTO_LENGTH, try_lock_exclusive, NULL, &fn);
  napi_set_named_property(env, exports, "tryLockExclusive", fn);
  napi_create_function(env, "unlock", NAPI_AUTO_LENGTH, unlock, NULL, &fn);
  napi_set_named_property(env, exports, "unlock", fn);
  napi_create_int32(env, EWOULDBLOCK, &code);
  napi_set_named_property(env, exports, "EWOULDBLOCK", code);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
