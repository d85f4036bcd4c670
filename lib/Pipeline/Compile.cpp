//===- Compile.cpp - compileModule: IR to PTX, cubin and metadata ---------===//
//
// Runs the pipeline, takes the PTX out of the gpu.binary, assembles it with
// ptxas for --emit=cubin, and fills in the kernel metadata (the runtime's
// types; the tools write docs/metadata.md's JSON file from them). Kernel
// signatures are read before the pipeline runs (it rewrites them); shared
// memory sizes after (convert-tile-to-gpu records them on the module).
//
//===----------------------------------------------------------------------===//

#include "tilec/Pipeline.h"
#include "LaunchRules.h"
#include "tilec/DTypeMlir.h"
#include "tilec/Frontend.h"
#include "tilec/Support/CudaTools.h"
#include "tilec/Target/Target.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "tilec/Dialect/TileGPU/IR/TileLayout.h"

#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <mutex>

using namespace mlir;

namespace {

/// True when a kernel of `module` has a dot the tensor cores may run: f16,
/// bf16 or fp8 operands, or f32 ones at tf32 precision (the types
/// getMmaLayoutFor accepts).
bool hasTensorCoreDot(ModuleOp module) {
  bool found = false;
  module.walk([&](tile::DotOp dot) {
    Type elem = getElementTypeOrSelf(dot.getA().getType());
    found |= elem.isF16() || elem.isBF16() || tile::isFp8(elem) ||
             (elem.isF32() &&
              dot.getPrecision() == tile::InputPrecision::tf32);
  });
  return found;
}

/// Sets LLVM's NVPTX code generation options (command-line options: the
/// only way gpu-module-to-binary's target machine reads them) for the
/// module about to be compiled, unless the user gave them on the command
/// line. For memory-bound kernels:
///  - nvptx-short-ptr: 32-bit pointers for shared and local memory (as
///    Triton): cheaper shared-memory addressing, and ptxas keeps libdevice's
///    Payne-Hanek array (cos, sin) in local memory instead of promoting it
///    to registers through compare/select chains (coscos: 54 -> 40 regs);
///  - disable-machine-sink: LLVM's machine sinking moves each element's
///    math down to its use past the next elements' branches (the libdevice
///    slow paths), so the partial results of all elements stay live at
///    once (coscos: 40 -> 28 regs, 75% -> 100% occupancy).
/// Tensor-core kernels keep LLVM's defaults: with both settings the matmul
/// example took 7.01 ms instead of 4.16 ms on the H200 (docs/performance.md).
void setNvptxCodegenOptions(bool tensorCoreKernels) {
  static const std::array<llvm::StringRef, 2> names = {"nvptx-short-ptr",
                                                       "disable-machine-sink"};
  auto &opts = llvm::cl::getRegisteredOptions();
  // What the user gave before the first compilation is theirs to keep.
  static const std::array<bool, 2> userGave = [&] {
    std::array<bool, 2> gave{};
    for (size_t i = 0; i < names.size(); ++i)
      if (auto it = opts.find(names[i]); it != opts.end())
        gave[i] = it->second->getNumOccurrences() > 0;
    return gave;
  }();
  for (size_t i = 0; i < names.size(); ++i)
    if (auto it = opts.find(names[i]); it != opts.end() && !userGave[i])
      (void)it->second->addOccurrence(0, names[i],
                                      tensorCoreKernels ? "false" : "true");
}

/// The metadata of the module's kernels as far as the signatures tell
/// (names, warps, parameters); shared memory is known after the pipeline.
/// Kernel signatures are checked by the dialect (pointers to and scalars of
/// the runtime's element types), so every type has a DType.
FailureOr<tilec::runtime::ModuleMetadata>
collectKernels(ModuleOp module, const tilec::PipelineOptions &options) {
  using tilec::runtime::ParamInfo;
  tilec::runtime::ModuleMetadata m;
  m.target = options.arch;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!tile::isKernel(func))
      continue;
    tilec::runtime::KernelMetadata k;
    k.name = func.getName().str();
    k.numWarps = tile::getNumWarps(func, options.numWarps);
    k.threadsPerProgram = 32 * k.numWarps;
    k.numCtas = tile::getNumCtas(func);
    SmallVector<std::string> names = tilec::parameterNames(func);
    FailureOr<tilec::LaunchRules> rules = tilec::readLaunchRules(func, names);
    if (failed(rules))
      return failure();
    k.grid = rules->grid;
    // Descriptor parameters the kernel stores through: "output" in the
    // metadata, derived (tile.output marks pointers only), so that bindings
    // such as PyTorch's schemas know which descriptors are written. A store
    // to a descriptor that is not a parameter as such (carried through a
    // region) could be any of them: all count as written.
    llvm::SmallDenseSet<Value> storedDescs;
    bool storesElsewhere = false;
    func.walk([&](tile::DescriptorStoreOp store) {
      auto arg = dyn_cast<BlockArgument>(store.getDesc());
      if (arg && arg.getOwner() == &func.getBody().front())
        storedDescs.insert(arg);
      else
        storesElsewhere = true;
    });
    for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
      ParamInfo p;
      p.name = names[i];
      Type type = arg.getType();
      p.kind = ParamInfo::Kind::Scalar;
      if (auto ptr = dyn_cast<tile::PointerType>(type)) {
        p.kind = ParamInfo::Kind::Pointer;
        type = ptr.getPointeeType();
      } else if (auto desc = dyn_cast<tile::TensorDescType>(type)) {
        // The box one TMA copy moves, the block the kernel moves, and the
        // swizzle the lowering chose.
        p.kind = ParamInfo::Kind::TensorDesc;
        type = desc.getElementType();
        tilegpu::TmaBox box = tilegpu::getTmaBox(
            desc.getBlockType().getShape(),
            desc.getElementType().getIntOrFloatBitWidth());
        p.desc.rank = int(box.box.size());
        for (size_t d = 0; d < box.box.size() && d < size_t(tilec::runtime::kMaxTensorRank);
             ++d)
          p.desc.block[d] = box.box[d];
        for (auto [d, extent] : llvm::enumerate(desc.getBlockType().getShape()))
          if (d < size_t(tilec::runtime::kMaxTensorRank))
            p.desc.tile[d] = extent;
        p.desc.swizzle = int(box.swizzle);
      }
      std::optional<tilec::DType> dtype = tilec::dtypeOf(type);
      if (!dtype)
        return func.emitError("kernel parameter '")
               << p.name << "' has type " << arg.getType()
               << ", which the kernel metadata cannot describe";
      p.type = *dtype;
      if (auto d = func.getArgAttrOfType<IntegerAttr>(
              i, tile::TileDialect::getDivisibilityAttrName()))
        p.divisibility = d.getInt();
      p.extent = rules->extents[i];
      p.shape = rules->shapes[i];
      p.from = rules->sources[i];
      p.output = rules->outputs[i];
      if (p.kind == ParamInfo::Kind::TensorDesc)
        p.output = storesElsewhere || storedDescs.contains(arg);
      k.params.push_back(std::move(p));
    }
    m.kernels.push_back(std::move(k));
  }
  return m;
}

} // namespace

std::string tilec::avoidPtxasNegBug(StringRef ptx) {
  std::string out;
  out.reserve(ptx.size() + ptx.size() / 16);
  while (!ptx.empty()) {
    auto [line, rest] = ptx.split('\n');
    bool last = rest.empty() && !ptx.ends_with("\n");
    ptx = rest;
    StringRef body = line.ltrim(" \t");
    StringRef indent = line.take_front(line.size() - body.size());
    StringRef bits = body.starts_with("neg.s32") ? "32"
                     : body.starts_with("neg.s16") ? "16"
                                                   : "";
    // `neg.sNN d, a;`: d and a registers (LLVM folds constants and never
    // predicates a negation); anything else is left as it is.
    StringRef ops = body.drop_front(7);
    if (!bits.empty() && !ops.empty() && (ops[0] == ' ' || ops[0] == '\t')) {
      auto [d, a] = ops.split(',');
      d = d.trim();
      a = a.trim();
      bool ends = a.consume_back(";");
      a = a.rtrim();
      if (ends && d.starts_with("%") && a.starts_with("%")) {
        out += (indent + "not.b" + bits + " \t" + d + ", " + a + ";\n" + indent +
                "add.s" + bits + " \t" + d + ", " + d + ", 1;")
                   .str();
        out += last ? "" : "\n";
        continue;
      }
    }
    out += line.str();
    out += last ? "" : "\n";
  }
  return out;
}

namespace {

/// The PTX of the module's gpu.binary.
FailureOr<std::string> extractPtx(ModuleOp module) {
  std::string ptx;
  for (auto binary : module.getOps<gpu::BinaryOp>())
    for (Attribute a : binary.getObjects())
      if (auto object = dyn_cast<gpu::ObjectAttr>(a))
        ptx += object.getObject().getValue().str();
  if (ptx.empty())
    return module.emitError("the pipeline produced no PTX (no kernels?)");
  // Calls left to libdevice functions mean libdevice was not linked.
  size_t at = ptx.find(".extern .func");
  while (at != std::string::npos) {
    size_t end = ptx.find('(', ptx.find(')', at) + 1);
    StringRef decl = StringRef(ptx).slice(at, end);
    size_t nv = decl.find("__nv_");
    if (nv != StringRef::npos) {
      StringRef name = decl.substr(nv).take_while(
          [](char c) { return isalnum(c) || c == '_'; });
      return module.emitError("the kernels call libdevice's ")
             << name
             << " but libdevice was not found; set CUDA_HOME to a CUDA "
                "toolkit (with nvvm/libdevice/libdevice.10.bc)";
    }
    at = ptx.find(".extern .func", at + 1);
  }
  return tilec::avoidPtxasNegBug(ptx);
}

/// Finds ptxas (tilec::findPtxasPath), or says why there is none.
FailureOr<std::string> findPtxas(ModuleOp module, StringRef configured) {
  std::string path = tilec::findPtxasPath(configured.str());
  if (!path.empty())
    return path;
  std::string asked = configured.str();
  if (asked.empty())
    if (const char *env = std::getenv("TILEC_PTXAS"))
      asked = env;
  if (!asked.empty())
    return module.emitError("ptxas not found at '")
           << asked << "'; --emit=cubin needs CUDA's ptxas";
  return module.emitError("ptxas not found ($CUDA_HOME/bin, $CUDA_PATH/bin, "
                          "PATH, /usr/local/cuda/bin); "
                          "--emit=cubin needs CUDA's ptxas (or use "
                          "--emit=ptx)");
}

/// Refuses a tile of more than `limit` elements at the op that makes it
/// (or the block argument that takes it), before any pass sizes anything by
/// it: 65536x65536 constants ran the store lowering out of memory, and a
/// 4096x4096 dot accumulator did not finish.
LogicalResult checkTileBudget(ModuleOp module, int64_t limit) {
  auto check = [&](Type type, Location loc, StringRef what) -> LogicalResult {
    auto tile = dyn_cast<RankedTensorType>(type);
    if (!tile || !tile.hasStaticShape() || tile.getNumElements() <= limit)
      return success();
    return emitError(loc) << what << " is a tile " << type << " of "
                          << tile.getNumElements()
                          << " elements, over the budget of " << limit
                          << " elements per tile (tilec "
                             "--max-tile-elements=N raises it)";
  };
  WalkResult result = module.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(check(arg.getType(), arg.getLoc(),
                           "block argument #" +
                               std::to_string(arg.getArgNumber()))))
            return WalkResult::interrupt();
    for (Value v : op->getResults())
      if (failed(check(v.getType(), op->getLoc(),
                       "the result of '" + op->getName().getStringRef().str() +
                           "'")))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// A private directory (mode 0700) under the system's temporary directory
/// for ptxas's input, output and log. The destructor removes the files and
/// the directory on every return, error or not; the files are also
/// registered with llvm::sys::RemoveFileOnSignal, so SIGINT or SIGTERM
/// removes them (LLVM's handler unlinks files, not directories: the empty
/// directory stays). A SIGKILL runs nothing: the directory and what was
/// written into it stay.
class ScratchDir {
public:
  ScratchDir() = default;
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;
  ~ScratchDir() {
    for (const std::string &f : files_) {
      llvm::sys::fs::remove(f);
      llvm::sys::DontRemoveFileOnSignal(f);
    }
    if (!dir_.empty())
      llvm::sys::fs::remove(dir_);
  }

  std::error_code create() {
    SmallString<128> prefix;
    llvm::sys::path::system_temp_directory(/*erasedOnReboot=*/true, prefix);
    llvm::sys::path::append(prefix, "tilec");
    if (std::error_code ec =
            llvm::sys::fs::createUniqueDirectory(prefix, dir_)) {
      dir_.clear();
      return ec;
    }
    return llvm::sys::fs::setPermissions(dir_, llvm::sys::fs::owner_all);
  }

  /// The path of `name` in the directory, removed with it.
  std::string file(StringRef name) {
    SmallString<128> path(dir_);
    llvm::sys::path::append(path, name);
    files_.push_back(path.str().str());
    llvm::sys::RemoveFileOnSignal(path);
    return files_.back();
  }

private:
  SmallString<128> dir_;
  std::vector<std::string> files_;
};

/// The cubin of `ptx`, from ptxas -v; `report` gets ptxas's report (what
/// the metadata's "resources" are read from).
FailureOr<std::string> assemble(ModuleOp module, StringRef ptx,
                                const tilec::Target &target,
                                const tilec::PipelineOptions &options,
                                std::string &report) {
  FailureOr<std::string> ptxas = findPtxas(module, options.ptxasPath);
  if (failed(ptxas))
    return failure();
  ScratchDir scratch;
  if (std::error_code ec = scratch.create())
    return module.emitError("cannot create a temporary directory for ptxas: ")
           << ec.message();
  std::string in = scratch.file("kernel.ptx");
  std::string out = scratch.file("kernel.cubin");
  std::string err = scratch.file("ptxas.log");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(in, ec);
    if (!ec) {
      os << ptx;
      os.close();
    }
    if (ec || os.has_error())
      return module.emitError("cannot write '")
             << in << "' for ptxas: " << (ec ? ec : os.error()).message();
  }
  std::string arch = target.getPtxasArch();
  std::string opt = "-O" + std::to_string(options.optLevel);
  // -v last: stand-in ptxas scripts of the tests read the input as $3.
  SmallVector<StringRef> args = {*ptxas, arch, opt, in, "-o", out, "-v"};
  std::optional<StringRef> redirects[] = {std::nullopt, err, err};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(*ptxas, args, std::nullopt, redirects, 0,
                                     0, &execError);
  auto log = llvm::MemoryBuffer::getFile(err);
  auto cubin = llvm::MemoryBuffer::getFile(out);
  if (rc != 0 || !cubin) {
    std::string message = execError;
    // The first line that is not -v's report says what went wrong.
    if (log) {
      SmallVector<StringRef> lines;
      (*log)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
      for (StringRef line : lines)
        if (!line.starts_with("ptxas info") && !line.starts_with(" ")) {
          message = line.trim().str();
          break;
        }
    }
    if (message.empty())
      message = "exit status " + std::to_string(rc) +
                (cubin ? "" : ", no cubin written");
    return module.emitError("ptxas failed: ") << message;
  }
  if (log)
    report = (*log)->getBuffer().str();
  return (*cubin)->getBuffer().str();
}

} // namespace

FailureOr<std::optional<std::string>> tilec::moduleTarget(ModuleOp module) {
  Attribute attr = module->getAttr("tile.target");
  if (!attr)
    return std::optional<std::string>();
  auto name = dyn_cast<StringAttr>(attr);
  if (!name)
    return module.emitError("'tile.target' must be a string naming a chip");
  llvm::Expected<Target> target = Target::get(name.getValue());
  if (!target)
    return module.emitError("'tile.target': ")
           << llvm::toString(target.takeError());
  return std::optional<std::string>(name.getValue().str());
}

std::string tilec::findPtxasPath(const std::string &configured) {
  return cuda::findPtxas(configured, "TILEC_PTXAS");
}

FailureOr<tilec::CompileResult>
tilec::compileModule(ModuleOp module, const PipelineOptions &options) {
  // The one check of the chip for the whole compilation: the passes get
  // the validated name.
  llvm::Expected<Target> target = Target::get(options.arch);
  if (!target)
    return module.emitError(llvm::toString(target.takeError()));
  // A module may name its chip; the options must then agree (tilec takes the
  // module's when --arch is not given, see moduleTarget).
  FailureOr<std::optional<std::string>> own = moduleTarget(module);
  if (failed(own))
    return failure();
  if (*own && **own != options.arch)
    return module.emitError()
           << "the module's tile.target is \"" << **own
           << "\" but the chip compiled for is \"" << options.arch
           << "\" (--arch): they must agree";
  if (failed(checkTileBudget(module, options.maxTileElements)))
    return failure();
  FailureOr<runtime::ModuleMetadata> metadata = collectKernels(module, options);
  if (failed(metadata))
    return failure();
  // MLIR's own search for libdevice complains about a CUDA_HOME without
  // one even when no kernel needs it; extractPtx says when one does.
  ScopedDiagnosticHandler quiet(module.getContext(), [](Diagnostic &d) {
    std::string text = d.str();
    return success(StringRef(text).starts_with("LibDevice path:") ||
                   StringRef(text).starts_with("CUDA path:"));
  });
  // LLVM's code generation options are process-global: one compilation at
  // a time sets and uses them.
  static std::mutex codegenMutex;
  std::unique_lock<std::mutex> codegenLock(codegenMutex, std::defer_lock);
  if (options.emit >= EmitLevel::PTX) {
    codegenLock.lock();
    setNvptxCodegenOptions(hasTensorCoreDot(module));
  }
  PassManager pm(module.getContext());
  if (options.applyCommandLineOptions) {
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    applyDefaultTimingPassManagerCLOptions(pm);
  }
  buildTilecPipeline(pm, options);
  if (failed(pm.run(module)))
    return failure();

  CompileResult result;
  if (options.emit < EmitLevel::PTX) {
    llvm::raw_string_ostream os(result.ir);
    // The printed kernel compiles again: its parameters keep their source
    // names (NameLoc, lib/Pipeline/Frontend.cpp), which its tile.grid and
    // tile.extent rules name, and the tile.params declaration goes, its
    // values being substituted everywhere (left, it would be a parameter
    // declared but never used).
    module->removeAttr("tile.params");
    module.print(os, OpPrintingFlags().printNameLocAsPrefix());
    return result;
  }
  if (auto shared =
          module->getAttrOfType<DictionaryAttr>("tile.shared_bytes"))
    for (runtime::KernelMetadata &k : metadata->kernels)
      if (auto bytes = shared.getAs<IntegerAttr>(k.name))
        k.sharedBytes = bytes.getInt();
  // The layout pass chooses the warps of a kernel without tile.num_warps.
  if (auto warps = module->getAttrOfType<DictionaryAttr>("tile.kernel_warps"))
    for (runtime::KernelMetadata &k : metadata->kernels)
      if (auto n = warps.getAs<IntegerAttr>(k.name)) {
        k.numWarps = n.getInt();
        k.threadsPerProgram = 32 * k.numWarps;
      }
  FailureOr<std::string> ptx = extractPtx(module);
  if (failed(ptx))
    return failure();
  result.ptx = *ptx;
  if (options.emit == EmitLevel::Cubin) {
    std::string report;
    FailureOr<std::string> cubin =
        assemble(module, result.ptx, *target, options, report);
    if (failed(cubin))
      return failure();
    result.cubin = *cubin;
    std::map<std::string, runtime::KernelResources> used =
        runtime::parsePtxasReport(report);
    for (runtime::KernelMetadata &k : metadata->kernels)
      if (auto it = used.find(k.name); it != used.end())
        k.resources = it->second;
  }
  result.metadata = std::move(*metadata);
  llvm::raw_string_ostream os(result.ir);
  module.print(os);
  return result;
}
