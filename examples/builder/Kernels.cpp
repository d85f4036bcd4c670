//===- Kernels.cpp - the list of builder examples -------------------------===//

#include "Kernels.h"

using namespace tilec;

const std::vector<examples::Example> &examples::allExamples() {
  static const std::vector<Example> all = {
      {"add", [] { return buildAdd(); }},
      {"coscos", [] { return buildCosCos(); }},
      {"bias_gelu", [] { return buildBiasGelu(); }},
      {"softmax", [] { return buildSoftmax(); }},
      {"scaled_masked_softmax", [] { return buildScaledMaskedSoftmax(); }},
      {"layernorm", [] { return buildLayerNorm(); }},
      {"residual_rmsnorm", [] { return buildResidualRmsNorm(); }},
      {"matmul", [] { return buildMatmul(); }},
      {"matmul_bias_gelu", [] { return buildMatmulBiasGelu(); }},
      {"matmul_tma_fp16", [] { return buildMatmulTmaFp16(); }},
      {"matmul_tma_f16out", [] { return buildMatmulTmaF16Out(); }},
      {"matmul_tf32", [] { return buildMatmulTf32(); }},
      {"attention_d64", [] { return buildAttention(64); }},
      {"attention_d128", [] { return buildAttention(128); }},
      {"attention_tma_d128", [] { return buildAttentionTma(128, 64); }},
      {"attention_tma_d128_n128", [] { return buildAttentionTma(128, 128); }},
      {"attention_tma_d128_overlap",
       [] { return buildAttentionTma(128, 64, true); }},
      {"attention_tma_d128_n128_overlap",
       [] { return buildAttentionTma(128, 128, true); }},
      {"attention_tma_d128_n128_overlap_pingpong",
       [] { return buildAttentionTma(128, 128, true, true); }},
      {"attention_tma_d128_n128_overlap_pingpong_rf",
       [] { return buildAttentionTma(128, 128, true, true, true); }},
      {"attention_tma_bwd_dkdv_d128",
       [] { return buildAttentionTmaBwd("dkdv", 128); }},
      {"attention_tma_bwd_dq_d128",
       [] { return buildAttentionTmaBwd("dq", 128); }},
      {"attention_bwd_pre_d64", [] { return buildAttentionBwd("pre", 64); }},
      {"attention_bwd_dkdv_d64", [] { return buildAttentionBwd("dkdv", 64); }},
      {"attention_bwd_dq_d64", [] { return buildAttentionBwd("dq", 64); }},
      {"attention_bwd_pre_d128", [] { return buildAttentionBwd("pre", 128); }},
      {"attention_bwd_dkdv_d128",
       [] { return buildAttentionBwd("dkdv", 128); }},
      {"attention_bwd_dq_d128", [] { return buildAttentionBwd("dq", 128); }},
      {"attention_bwd_dkdv_ds_d64",
       [] { return buildAttentionBwd("dkdv_ds", 64); }},
      {"attention_bwd_dq_ds_d64", [] { return buildAttentionBwd("dq_ds", 64); }},
      {"attention_bwd_dkdv_ds_d128",
       [] { return buildAttentionBwd("dkdv_ds", 128); }},
      {"attention_bwd_dq_ds_d128",
       [] { return buildAttentionBwd("dq_ds", 128); }},
  };
  return all;
}
