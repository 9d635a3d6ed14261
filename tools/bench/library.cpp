#include "library.h"

#include <dlfcn.h>

#include "peer_api.h"

namespace strata_bench {

const char* CallStatusName(CallStatus status) {
  switch (status) {
    case CallStatus::kOk: return "ok";
    case CallStatus::kUnsupported: return "unsupported";
    case CallStatus::kError: return "error";
  }
  return "unknown";
}

namespace {

CallStatus FromPeerStatus(int32_t status) {
  switch (status) {
    case STRATA_BENCH_PEER_OK: return CallStatus::kOk;
    case STRATA_BENCH_PEER_UNSUPPORTED: return CallStatus::kUnsupported;
    default: return CallStatus::kError;
  }
}

class PeerLibrary : public Library {
 public:
  explicit PeerLibrary(const StrataBenchPeer* peer) : peer_(peer), name_(peer->name) {}

  const std::string& name() const override { return name_; }
  std::string Describe() const override { return peer_->describe(); }
  CallStatus SetThreads(int threads) override { return FromPeerStatus(peer_->set_threads(threads)); }
  CallStatus Gemm(const GemmArgs& g) override {
    return FromPeerStatus(peer_->sgemm(g.trans_a ? 1 : 0, g.trans_b ? 1 : 0, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b,
                                       g.ldb, g.beta, g.c, g.ldc));
  }

 private:
  const StrataBenchPeer* peer_;
  std::string name_;
};

}  // namespace

std::unique_ptr<Library> LoadPeer(const std::string& path, std::string* error) {
  // RTLD_LOCAL keeps the plugin's libraries out of the global namespace, and RTLD_DEEPBIND makes the plugin (and
  // what it pulls in) resolve its own symbols first, so e.g. BLIS's sgemm_ never binds to OpenBLAS's.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (handle == nullptr) {
    const char* message = dlerror();
    *error = message != nullptr ? message : "dlopen failed";
    return nullptr;
  }
  const auto entry = reinterpret_cast<StrataBenchPeerEntry>(dlsym(handle, STRATA_BENCH_PEER_ENTRY));
  const StrataBenchPeer* peer = entry != nullptr ? entry() : nullptr;
  if (peer == nullptr || peer->abi_version != STRATA_BENCH_PEER_ABI_VERSION) {
    // Left loaded, not dlclose()d: the libraries it pulled in may already have started threads.
    *error = path + ": not a benchmark peer of ABI version " + std::to_string(STRATA_BENCH_PEER_ABI_VERSION);
    return nullptr;
  }
  return std::make_unique<PeerLibrary>(peer);
}

}  // namespace strata_bench
