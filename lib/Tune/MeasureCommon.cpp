//===- MeasureCommon.cpp - what every tuning problem measures alike -------===//

#include "MeasureCommon.h"
#include "tilec/Runtime/Cache.h"
#include "tilec/Runtime/Driver.h"

#include <algorithm>

using namespace tilec;
using namespace tilec::tune;
using namespace tilec::runtime;

bool tune::detail::lookupWinner(const Manifest &manifest, const TuneKeyParts &parts,
                          const MeasureOptions &options, TuneResult &result,
                          std::optional<TuneCache> &cache) {
  std::string cacheDir = options.cacheDir;
  if (options.useCache && cacheDir.empty()) {
    Expected<std::string> d = defaultCacheDir();
    if (d.ok())
      cacheDir = *d;
    else
      result.cacheNote = "no cache folder: " + d.message();
  }
  if (!options.useCache || cacheDir.empty())
    return false;
  cache.emplace(cacheDir);
  result.cacheFile = cache->pathFor(tuneKey(parts));
  CacheLookup hit = cache->lookup(parts, manifest);
  if (hit.winner) {
    result.fromCache = true;
    result.winner = *hit.winner;
    return true;
  }
  if (!hit.ignored.empty())
    result.cacheNote = "ignored " + hit.ignored + " at " + result.cacheFile;
  return false;
}

void tune::detail::setWinner(const Manifest &manifest, int bestId,
                             double bestMs, int measured,
                             const std::optional<TuneCache> &cache,
                             const TuneKeyParts &parts, TuneResult &result) {
  if (bestId < 0)
    return;
  result.winner = winnerOf(manifest, *manifest.find(bestId));
  result.winner.medianMs = bestMs;
  result.winner.measuredShape = result.shape;
  result.winner.measured = measured;
  if (!cache)
    return;
  if (Status s = cache->store(parts, result.winner); !s.ok())
    result.cacheNote += (result.cacheNote.empty() ? "" : "; ") +
                        std::string("not stored: ") + s.message();
}

size_t tune::detail::rotatingSetCount(const Context &context, size_t setBytes,
                                const MeasureOptions &options) {
  int l2 = 0;
  if (context.driver().cuDeviceGetAttribute(
          &l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, context.device()) !=
          CUDA_SUCCESS ||
      l2 <= 0)
    l2 = 64 << 20; // more than any current GPU's
  setBytes = std::max<size_t>(setBytes, 1);
  size_t sets = std::max<size_t>(
      1, (size_t(options.rotateFactor) * size_t(l2) + setBytes - 1) /
             setBytes);
  return std::min<size_t>(
      {sets, 64, std::max<size_t>(1, (size_t(8) << 30) / setBytes)});
}

Status tune::detail::timeLaunches(const Context &context, const Stream &stream,
                            const std::function<Status(size_t)> &launch,
                            size_t sets, bool encodeFirst,
                            const MeasureOptions &options, CandidateTime &t) {
  Status s;
  for (int w = 1; s.ok() && w < options.warmup; ++w)
    s = launch(size_t(w));
  if (encodeFirst)
    for (int r = 0; s.ok() && r < std::min<int>(options.reps, int(sets)); ++r)
      s = launch(size_t(options.warmup + r));
  std::vector<Event> events;
  for (int r = 0; s.ok() && r < 2 * options.reps; ++r) {
    Expected<Event> e = Event::create(context);
    if (!e.ok())
      s = e.status();
    else
      events.push_back(std::move(*e));
  }
  for (int r = 0; s.ok() && r < options.reps; ++r) {
    s = events[2 * r].record(stream.get());
    if (s.ok())
      s = launch(size_t(options.warmup + r));
    if (s.ok())
      s = events[2 * r + 1].record(stream.get());
  }
  if (s.ok())
    s = stream.synchronize();
  std::vector<double> times;
  for (int r = 0; s.ok() && r < options.reps; ++r) {
    Expected<float> e = Event::elapsedMs(events[2 * r], events[2 * r + 1]);
    if (!e.ok())
      s = e.status();
    else
      times.push_back(*e);
  }
  if (!s.ok())
    return s;
  std::sort(times.begin(), times.end());
  t.measured = true;
  t.minMs = times.empty() ? 0 : times.front();
  t.medianMs = times.empty() ? 0 : times[times.size() / 2];
  return s;
}

void tune::detail::reportProgress(const MeasureOptions &options, int index,
                            int count, const Candidate &cand,
                            const CandidateTime &t, int bestId,
                            double bestMs) {
  if (!options.progress)
    return;
  auto ms = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f ms", v);
    return std::string(buf);
  };
  std::string line = "[" + std::to_string(index + 1) + "/" +
                     std::to_string(count) + "] candidate " +
                     std::to_string(cand.id) + " (" + describe(cand.params) +
                     "): " +
                     (t.error.empty() ? ms(t.medianMs) : "failed: " + t.error);
  if (bestId >= 0)
    line += "; best " + ms(bestMs) + " (candidate " + std::to_string(bestId) +
            ")";
  options.progress(line);
}
