#!/usr/bin/env bash
# Session 15, here: the PyTorch extension's sources (scripts/s9/prep-torch.sh's
# list) with tile.from (the GEMMs' sizes and strides taken from the tensors,
# their outputs allocated) into .dev/s15/torch. There: scripts/s15/run-1.sh,
# carry [".dev/s15", ".gpu-deps"].
set -euo pipefail
bash scripts/s9/prep-torch.sh > /dev/null
rm -rf .dev/s15 && mkdir -p .dev/s15 && mv .dev/s9t/torch .dev/s15/torch && rm -rf .dev/s9t
du -sh .dev/s15
