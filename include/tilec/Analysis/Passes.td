//===- Passes.td - test passes of the analyses -------------*- tablegen -*-===//

#ifndef TILEC_ANALYSIS_PASSES_TD
#define TILEC_ANALYSIS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TestPrintAxisInfo : Pass<"test-print-axis-info", "::mlir::ModuleOp"> {
  let summary = "Report the axis analysis of every integer and pointer value";
  let description = [{
    Runs the axis analysis (contiguity, divisibility, constancy) and emits a
    remark on each op with an integer or pointer result, for lit tests.
  }];
}

def TestPrintClusterUniformity
    : Pass<"test-print-cluster-uniformity", "::mlir::ModuleOp"> {
  let summary = "Report the cluster uniformity of every scalar integer value";
  let description = [{
    For each kernel with `tile.num_ctas` > 1, emits a remark on each op
    with a scalar integer result: `E + coef * rank` with E's divisor and
    sign (ClusterUniformity), `uniform` when coef is 0, or `unknown`; for
    lit tests.
  }];
}

#endif // TILEC_ANALYSIS_PASSES_TD
