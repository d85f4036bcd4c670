# Runs every GoogleTest program under build/test/Unit as a lit suite.
import os
import lit.formats

config.name = "TILEC-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.tilec_obj_root, "test", "Unit")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
