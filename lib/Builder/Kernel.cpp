//===- Kernel.cpp - kernels, parameters, errors, output -------------------===//
//
// A Kernel owns its MLIRContext (kernels built on different threads do not
// share one) and a module holding one `func.func` kernel whose body ends in
// `return` from the start, so the module is well formed after every call.
// Errors are C++ exceptions (BuildError): they are thrown only from frames of
// this library, never through MLIR's (built without exceptions), which is why
// regions are built by hand rather than through MLIR's body-builder callbacks.
//
//===----------------------------------------------------------------------===//

#include "Detail.h"
#include "tilec/Support/GridRule.h"

#include "tilec/InitAll.h"
#include "tilec/Pipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace tilec {
using namespace detail;

//===----------------------------------------------------------------------===//
// BuildError, CallSite, Site
//===----------------------------------------------------------------------===//

static std::string formatError(const std::string &file, unsigned line,
                               unsigned column, const std::string &op,
                               const std::string &message) {
  std::string s = file + ":" + std::to_string(line);
  if (column)
    s += ":" + std::to_string(column);
  return s + ": " + op + ": " + message;
}

BuildError::BuildError(std::string file, unsigned line, unsigned column,
                       std::string op, std::string message)
    : std::runtime_error(formatError(file, line, column, op, message)),
      file_(std::move(file)), line_(line), column_(column), op_(std::move(op)),
      message_(std::move(message)) {}

/// The outermost live CallSite of this thread, if not suspended.
static thread_local const CallSite *activeCallSite = nullptr;

CallSite::CallSite(std::string_view name, SourceLoc loc)
    : name_(name), loc_(loc), owner_(activeCallSite == nullptr) {
  if (owner_)
    activeCallSite = this;
}

CallSite::~CallSite() {
  if (owner_)
    activeCallSite = nullptr;
}

CallSite::Suspend::Suspend() : saved_(activeCallSite) {
  activeCallSite = nullptr;
}

CallSite::Suspend::~Suspend() { activeCallSite = saved_; }

Site detail::site(const SourceLoc &loc, std::string_view op) {
  if (!activeCallSite)
    return {loc, std::string(op)};
  std::string name(activeCallSite->name());
  if (name != op)
    name += ": " + std::string(op);
  return {activeCallSite->loc(), std::move(name)};
}

void buildError(std::string_view op, const std::string &message,
                SourceLoc loc) {
  Site s = site(loc, op);
  throw BuildError(s.loc.file_name(), s.loc.line(), s.loc.column(), s.op,
                   message);
}

//===----------------------------------------------------------------------===//
// KernelImpl
//===----------------------------------------------------------------------===//

static bool isIdentifier(StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

KernelImpl::KernelImpl(std::string kernelName, int warps, const Site &where)
    : context(std::make_unique<MLIRContext>(MLIRContext::Threading::DISABLED)),
      builder(context.get()), name(std::move(kernelName)), numWarps(warps) {
  DialectRegistry registry;
  registerTilecDialects(registry);
  context->appendDialectRegistry(registry);
  context
      ->loadDialect<tile::TileDialect, func::FuncDialect, arith::ArithDialect,
                    math::MathDialect, scf::SCFDialect>();
  Location l = loc(where);
  module = ModuleOp::create(l);
  if (!isIdentifier(name))
    fail(where, "kernel name '" + name +
                    "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)");
  // 0: no tile.num_warps, so tile-assign-layouts chooses (for tiles that
  // are not powers of two: 4 warps for a 3072-wide bf16 row).
  if (warps < 0 || warps > 32)
    fail(where, "numWarps must be in [1, 32] (or 0: the layout pass "
                "chooses), got " +
                    std::to_string(warps));
  builder.setInsertionPointToEnd(module->getBody());
  func = func::FuncOp::create(builder, l, name,
                              FunctionType::get(context.get(), {}, {}));
  func->setAttr(tile::TileDialect::getKernelAttrName(), builder.getUnitAttr());
  if (warps != 0)
    func->setAttr(tile::TileDialect::getNumWarpsAttrName(),
                  builder.getI32IntegerAttr(warps));
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToEnd(entry);
  auto ret = func::ReturnOp::create(builder, l);
  builder.setInsertionPoint(ret);
}

KernelImpl::~KernelImpl() = default;

DiagnosticCapture::DiagnosticCapture(MLIRContext *context) : context(context) {
  // Notes and warnings are dropped; errors become the BuildError's message.
  id = context->getDiagEngine().registerHandler([this](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      errors.emplace_back(d.getLocation(), d.str());
    return success();
  });
}

DiagnosticCapture::~DiagnosticCapture() {
  context->getDiagEngine().eraseHandler(id);
}

std::optional<std::pair<Location, std::string>>
DiagnosticCapture::first() const {
  if (errors.empty())
    return std::nullopt;
  return errors.front();
}

Location KernelImpl::loc(const Site &s) {
  return FileLineColLoc::get(context.get(), s.loc.file_name(), s.loc.line(),
                             s.loc.column());
}

void KernelImpl::fail(const Site &s, const std::string &message) {
  std::string file = s.loc.file_name();
  BuildError error(file, s.loc.line(), s.loc.column(), s.op, message);
  if (!broken)
    broken = error.what();
  throw error;
}

void KernelImpl::checkUsable(const Site &s) {
  if (!broken)
    return;
  // Not fail(): the first error stays the one recorded.
  throw BuildError(s.loc.file_name(), s.loc.line(), s.loc.column(), s.op,
                   "kernel '" + name +
                       "' is unusable after an earlier error: " + *broken);
}

/// What kind of body a region is, for errors.
static std::string describeRegion(Region *region) {
  Operation *op = region->getParentOp();
  if (isa<scf::ForOp>(op))
    return "a forLoop body";
  if (isa<scf::WhileOp>(op))
    return "a whileLoop body";
  if (isa<scf::IfOp>(op))
    return "an ifThen/ifThenElse branch";
  if (isa<tile::ReduceOp, tile::ScanOp>(op))
    return "a reduce/scan combiner";
  return "the kernel body";
}

mlir::Value KernelImpl::use(const Value &v, const Site &s) {
  checkUsable(s);
  if (v.isNull())
    fail(s, "operand is a default-constructed (null) Value");
  const std::shared_ptr<KernelImpl> &owner = Access::impl(v);
  if (owner.get() != this)
    fail(s, "operand belongs to kernel '" + owner->name + "', not to kernel '" +
                name + "'");
  mlir::Value raw = Access::raw(v);
  Region *defRegion = raw.getParentRegion();
  Region *here = builder.getInsertionBlock()->getParent();
  if (!defRegion->isAncestor(here))
    fail(s, "operand " + typeStr(raw.getType()) + " was defined inside " +
                describeRegion(defRegion) +
                " and cannot be used outside it; return it from the body");
  if (!isolated.empty() && !isolated.back()->isAncestor(defRegion))
    fail(s, "a reduce/scan combiner may use only its arguments and "
            "numbers, not the outer value " +
                typeStr(raw.getType()));
  return raw;
}

void KernelImpl::verifyNew(Operation *op, const Site &s) {
  DiagnosticCapture capture(context.get());
  if (succeeded(mlir::verify(op, /*verifyRecursively=*/false)))
    return;
  auto diag = capture.first();
  op->erase();
  fail(s, diag ? diag->second : "the op failed to verify");
}

/// The file, line and column of a location, looking through fused and named
/// locations; false if there is none.
static bool findFileLoc(Location loc, FileLineColLoc &out) {
  if (auto f = dyn_cast<FileLineColLoc>(loc)) {
    out = f;
    return true;
  }
  if (auto n = dyn_cast<NameLoc>(loc))
    return findFileLoc(n.getChildLoc(), out);
  if (auto f = dyn_cast<FusedLoc>(loc))
    for (Location l : f.getLocations())
      if (findFileLoc(l, out))
        return true;
  if (auto c = dyn_cast<CallSiteLoc>(loc))
    return findFileLoc(c.getCallee(), out);
  return false;
}

/// Throws `d` as a BuildError at its own location if it has one (the line
/// that built the op), else at `s`. An invalid module (`markBroken`) makes the
/// kernel unusable; a pipeline failure leaves it as it was.
[[noreturn]] static void failAtDiagnostic(KernelImpl &k, const Site &s,
                                          std::pair<Location, std::string> d,
                                          bool markBroken) {
  FileLineColLoc fl;
  BuildError error = findFileLoc(d.first, fl)
                         ? BuildError(fl.getFilename().str(), fl.getLine(),
                                      fl.getColumn(), s.op, d.second)
                         : BuildError(s.loc.file_name(), s.loc.line(),
                                      s.loc.column(), s.op, d.second);
  if (markBroken && !k.broken)
    k.broken = error.what();
  throw error;
}

void KernelImpl::verifyModule(const Site &s) {
  checkUsable(s);
  DiagnosticCapture capture(context.get());
  if (succeeded(mlir::verify(module->getOperation())))
    return;
  auto diag = capture.first();
  if (!diag)
    fail(s, "the module failed to verify");
  failAtDiagnostic(*this, s, *diag, /*markBroken=*/true);
}

//===----------------------------------------------------------------------===//
// Access
//===----------------------------------------------------------------------===//

Value Access::wrap(const std::shared_ptr<KernelImpl> &k, mlir::Value v,
                   std::vector<Pad> pads) {
  Value out;
  out.kernel_ = k;
  out.value_ = v.getAsOpaquePointer();
  setPads(out, pads);
  return out;
}

std::vector<Pad> Access::pads(const Value &v) {
  std::vector<Pad> out;
  for (auto [mask, count] : v.pads_)
    out.emplace_back(mlir::Value::getFromOpaquePointer(mask),
                     count ? mlir::Value::getFromOpaquePointer(count)
                           : mlir::Value());
  return out;
}

void Access::setPads(Value &v, const std::vector<Pad> &pads) {
  v.pads_.clear();
  for (auto [mask, count] : pads)
    v.pads_.emplace_back(mask.getAsOpaquePointer(),
                         count ? count.getAsOpaquePointer() : nullptr);
}

//===----------------------------------------------------------------------===//
// Kernel: construction, parameters, program identity
//===----------------------------------------------------------------------===//

Kernel::Kernel(std::string name, KernelOptions options, SourceLoc loc)
    : impl_(std::make_shared<KernelImpl>(std::move(name), options.numWarps,
                                         site(loc, "Kernel"))) {
  if (options.approxMath)
    impl_->func->setAttr(tile::TileDialect::getApproxMathAttrName(),
                         impl_->builder.getUnitAttr());
  if (options.numStages < 0 || options.numStages > 8)
    impl_->fail(site(loc, "Kernel"), "numStages must be in [1, 8] (or 0: the "
                              "pipeline's default), got " +
                                  std::to_string(options.numStages));
  if (options.pingpong)
    impl_->func->setAttr(tile::TileDialect::getPingPongAttrName(),
                         impl_->builder.getUnitAttr());
  if (options.numStages)
    impl_->func->setAttr(tile::TileDialect::getNumStagesAttrName(),
                         impl_->builder.getI32IntegerAttr(options.numStages));
  if (options.numCtas != 1 && options.numCtas != 2 && options.numCtas != 4)
    impl_->fail(site(loc, "Kernel"), "numCtas must be 1, 2 or 4 (programs "
                                     "per cluster), got " +
                                         std::to_string(options.numCtas));
  if (options.numCtas != 1)
    impl_->func->setAttr(tile::TileDialect::getNumCtasAttrName(),
                         impl_->builder.getI32IntegerAttr(options.numCtas));
}

const std::string &Kernel::name() const { return impl_->name; }
int Kernel::numWarps() const { return impl_->numWarps; }
std::vector<ParamInfo> Kernel::params() const { return impl_->params; }

/// Appends a parameter after checking its name and hint.
static Value addParam(const std::shared_ptr<KernelImpl> &k, const Site &s,
                      std::string name, Type type, DType dtype, bool isPointer,
                      int divisibility) {
  k->checkUsable(s);
  if (!isIdentifier(name))
    k->fail(s, "parameter name '" + name +
                   "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)");
  for (const ParamInfo &p : k->params)
    if (p.name == name)
      k->fail(s, "kernel '" + k->name + "' already has a parameter named '" +
                     name + "'");
  if (divisibility < 1 || (divisibility & (divisibility - 1)))
    k->fail(s, "divisibility of '" + name +
                   "' must be a positive power of two, got " +
                   std::to_string(divisibility));
  if (divisibility > 1 && !isPointer && !isInteger(dtype))
    k->fail(s, "divisibility applies to integer and pointer parameters, not "
               "'" +
                   name + "' of type " + std::string(dtypeName(dtype)));
  MLIRContext *ctx = k->context.get();
  SmallVector<NamedAttribute> attrs;
  if (divisibility > 1)
    attrs.push_back(NamedAttribute(
        StringAttr::get(ctx, tile::TileDialect::getDivisibilityAttrName()),
        k->builder.getI32IntegerAttr(divisibility)));
  unsigned index = k->func.getNumArguments();
  // The name rides on the argument's location, so the printer can write %x.
  Location argLoc = NameLoc::get(StringAttr::get(ctx, name), k->loc(s));
  // func.func takes any argument type; the verifier checks kernel ones.
  (void)k->func.insertArgument(index, type, DictionaryAttr::get(ctx, attrs),
                               argLoc);
  k->params.push_back({name, isPointer, dtype, divisibility});
  return Access::wrap(k, k->func.getArgument(index));
}

Value Kernel::pointer(std::string name, DType pointee, int divisibility,
                      SourceLoc loc) {
  Site s = site(loc, "Kernel::pointer");
  MLIRContext *ctx = impl_->context.get();
  Type type = tile::PointerType::get(ctx, mlirType(pointee, ctx));
  return addParam(impl_, s, std::move(name), type, pointee, true, divisibility);
}

/// The parameters declared so far, as the rule parser sees them.
static std::vector<grid::ParamRef> ruleRefs(const KernelImpl &k) {
  std::vector<grid::ParamRef> refs;
  for (auto [i, p] : llvm::enumerate(k.params)) {
    bool desc = !p.block.empty();
    // A tensor's rank when known: a descriptor's, a pointer's shape's.
    int rank = desc ? int(p.block.size()) : p.isPointer ? 0 : -1;
    func::FuncOp func = k.func;
    if (p.isPointer)
      if (auto shape = func.getArgAttrOfType<ArrayAttr>(i, "tile.shape"))
        rank = int(shape.size());
    refs.push_back({p.name,
                    !p.isPointer && !desc &&
                        (p.dtype == DType::I32 || p.dtype == DType::I64),
                    p.isPointer ? "a pointer"
                    : desc      ? "a tensor descriptor"
                                : "not an integer scalar",
                    rank});
  }
  return refs;
}

/// The index of parameter `v` of kernel `k`; a BuildError naming `what` if
/// `v` is not one.
static unsigned paramIndex(KernelImpl &k, const Site &s, const Value &v,
                           const std::string &what) {
  if (Access::impl(v).get() == &k)
    if (auto arg = dyn_cast<BlockArgument>(Access::raw(v)))
      if (arg.getOwner() == &k.func.getBody().front())
        return arg.getArgNumber();
  k.fail(s, what + " takes a parameter of kernel '" + k.name +
                "' (a Value that Kernel::pointer or Kernel::tensorDesc "
                "returned)");
}

void Kernel::markOutput(const Value &pointer, SourceLoc loc) {
  Site s = site(loc, "Kernel::markOutput");
  impl_->checkUsable(s);
  unsigned i = paramIndex(*impl_, s, pointer, "markOutput");
  const ParamInfo &p = impl_->params[i];
  if (!p.isPointer)
    impl_->fail(s, "markOutput applies to pointer parameters, not '" + p.name +
                       "' (a descriptor the kernel stores through is an "
                       "output already)");
  impl_->func.setArgAttr(i, "tile.output", impl_->builder.getUnitAttr());
}

void Kernel::setShape(const Value &param, const std::vector<std::string> &sizes,
                      SourceLoc loc) {
  Site s = site(loc, "Kernel::setShape");
  impl_->checkUsable(s);
  unsigned i = paramIndex(*impl_, s, param, "setShape");
  const ParamInfo &p = impl_->params[i];
  bool desc = !p.block.empty();
  if (!p.isPointer && !desc)
    impl_->fail(s, "setShape applies to pointer and tensor descriptor "
                   "parameters, not '" + p.name + "'");
  if (sizes.empty() || sizes.size() > 5)
    impl_->fail(s, "a shape has 1 to 5 sizes, got " +
                       std::to_string(sizes.size()));
  if (desc && sizes.size() != p.block.size())
    impl_->fail(s, "'" + p.name + "' is a rank-" +
                       std::to_string(p.block.size()) +
                       " tensor descriptor but the shape has " +
                       std::to_string(sizes.size()) + " sizes");
  std::vector<grid::ParamRef> refs = ruleRefs(*impl_);
  SmallVector<Attribute> texts;
  for (size_t d = 0; d < sizes.size(); ++d) {
    auto e = grid::parse(sizes[d], refs);
    if (!e.ok())
      impl_->fail(s, "shape of '" + p.name + "', size " + std::to_string(d) +
                         ": " + e.message());
    texts.push_back(impl_->builder.getStringAttr(sizes[d]));
  }
  impl_->func.setArgAttr(i, "tile.shape", impl_->builder.getArrayAttr(texts));
}

void Kernel::setFrom(const Value &scalar, const std::string &source,
                     SourceLoc loc) {
  Site s = site(loc, "Kernel::setFrom");
  impl_->checkUsable(s);
  unsigned i = paramIndex(*impl_, s, scalar, "setFrom");
  const ParamInfo &p = impl_->params[i];
  if (p.isPointer || !p.block.empty() ||
      (p.dtype != DType::I32 && p.dtype != DType::I64))
    impl_->fail(s, "setFrom applies to i32 and i64 scalar parameters, not '" +
                       p.name + "'");
  auto parsed = grid::parseSource(source, ruleRefs(*impl_));
  if (!parsed.ok())
    impl_->fail(s, "source of '" + p.name + "': " + parsed.message());
  impl_->func.setArgAttr(i, "tile.from", impl_->builder.getStringAttr(source));
}

void Kernel::setGrid(const std::vector<std::string> &dims, SourceLoc loc) {
  Site s = site(loc, "Kernel::setGrid");
  impl_->checkUsable(s);
  if (dims.empty() || dims.size() > 3)
    impl_->fail(s, "a grid rule has 1 to 3 expressions (x, y, z), got " +
                       std::to_string(dims.size()));
  std::vector<grid::ParamRef> refs = ruleRefs(*impl_);
  static const char *axes[] = {"x", "y", "z"};
  SmallVector<Attribute> texts;
  for (size_t d = 0; d < dims.size(); ++d) {
    auto e = grid::parse(dims[d], refs);
    if (!e.ok())
      impl_->fail(s, std::string("grid rule ") + axes[d] + ": " + e.message());
    texts.push_back(impl_->builder.getStringAttr(dims[d]));
  }
  impl_->func->setAttr("tile.grid", impl_->builder.getArrayAttr(texts));
}

Value Kernel::tensorDesc(std::string name, DType element,
                         const std::vector<int64_t> &block, SourceLoc loc) {
  Site s = site(loc, "Kernel::tensorDesc");
  impl_->checkUsable(s);
  MLIRContext *ctx = impl_->context.get();
  if (element == DType::I1)
    impl_->fail(s, "tensor descriptor '" + name +
                       "' has element type i1; descriptors hold i8, i16, i32, "
                       "i64, f16, bf16, f32, f64, f8E4M3FN or f8E5M2");
  // The type's own rules, reported at the call site.
  std::string why;
  auto blockType = RankedTensorType::get(block, mlirType(element, ctx));
  auto emit = [&]() {
    return mlir::emitError(UnknownLoc::get(ctx));
  };
  {
    ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &d) {
      why = d.str();
      return success();
    });
    if (failed(tile::TensorDescType::verify(emit, blockType)))
      impl_->fail(s, "tensor descriptor '" + name + "': " + why);
  }
  Value v = addParam(impl_, s, std::move(name),
                     tile::TensorDescType::get(ctx, blockType), element, false,
                     1);
  impl_->params.back().block = block;
  return v;
}

Value Kernel::scalar(std::string name, DType type, int divisibility,
                     SourceLoc loc) {
  Site s = site(loc, "Kernel::scalar");
  impl_->checkUsable(s);
  if (type != DType::I1 && type != DType::I32 && type != DType::I64 &&
      type != DType::F16 && type != DType::BF16 && type != DType::F32)
    impl_->fail(s, "scalar parameter '" + name + "' has type " +
                       std::string(dtypeName(type)) +
                       "; kernel scalars are i1, i32, i64, f16, bf16 or f32");
  return addParam(impl_, s, std::move(name), mlirType(type, impl_->context.get()),
                  type, false, divisibility);
}

static void checkAxis(KernelImpl &k, const Site &s, int axis) {
  if (axis < 0 || axis > 2)
    k.fail(s, "grid axis must be 0, 1 or 2, got " + std::to_string(axis));
}

Value Kernel::programId(int axis, SourceLoc loc) {
  Site s = site(loc, "tile.program_id");
  impl_->checkUsable(s);
  checkAxis(*impl_, s, axis);
  return Access::wrap(
      impl_, impl_->create<tile::ProgramIdOp>(s, impl_->builder.getI32Type(),
                                              (uint32_t)axis));
}

Value Kernel::numPrograms(int axis, SourceLoc loc) {
  Site s = site(loc, "tile.num_programs");
  impl_->checkUsable(s);
  checkAxis(*impl_, s, axis);
  return Access::wrap(
      impl_, impl_->create<tile::NumProgramsOp>(s, impl_->builder.getI32Type(),
                                                (uint32_t)axis));
}

Value Kernel::range(int64_t size, SourceLoc loc) { return range(0, size, loc); }

Value Kernel::range(int64_t start, int64_t end, SourceLoc loc) {
  Site s = site(loc, "tile.range");
  impl_->checkUsable(s);
  if (end <= start)
    impl_->fail(s, "end (" + std::to_string(end) +
                       ") must be greater than start (" +
                       std::to_string(start) + ")");
  if (start < INT32_MIN || end > INT32_MAX)
    impl_->fail(s, "bounds [" + std::to_string(start) + ", " +
                       std::to_string(end) + ") do not fit in i32");
  auto type = RankedTensorType::get({end - start}, impl_->builder.getI32Type());
  return Access::wrap(impl_,
                      impl_->create<tile::RangeOp>(
                          s, type, impl_->builder.getI32IntegerAttr(start),
                          impl_->builder.getI32IntegerAttr(end)));
}

//===----------------------------------------------------------------------===//
// Kernel: results
//===----------------------------------------------------------------------===//

std::string Kernel::str(const PrintOptions &options, SourceLoc loc) const {
  Site s = site(loc, "Kernel::str");
  impl_->verifyModule(s);
  OpPrintingFlags flags;
  if (options.paramNames)
    flags.printNameLocAsPrefix();
  if (options.locations)
    flags.enableDebugInfo();
  std::string text;
  llvm::raw_string_ostream os(text);
  impl_->module->print(os, flags);
  return text;
}

ModuleOp Kernel::module(SourceLoc loc) const {
  Site s = site(loc, "Kernel::module");
  impl_->verifyModule(s);
  return *impl_->module;
}

CompileResult Kernel::compile(SourceLoc loc) const {
  return compile(PipelineOptions(), loc);
}

CompileResult Kernel::compile(const PipelineOptions &options,
                              SourceLoc loc) const {
  Site s = site(loc, "Kernel::compile");
  impl_->verifyModule(s);
  // The pipeline rewrites in place; the kernel keeps its own module.
  OwningOpRef<ModuleOp> copy = impl_->module->clone();
  DiagnosticCapture capture(impl_->context.get());
  FailureOr<CompileResult> result = compileModule(*copy, options);
  if (failed(result)) {
    auto diag = capture.first();
    if (!diag)
      diag.emplace(impl_->loc(s), "the pipeline failed without a diagnostic");
    failAtDiagnostic(*impl_, s, *diag, /*markBroken=*/false);
  }
  return std::move(*result);
}

} // namespace tilec
