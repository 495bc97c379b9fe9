# The file tests (docs/testing.md, "File tests"): each .rise or .elv file under this
# folder is one test. Its `// RUN:` lines are shell commands (lit's internal shell),
# its `// CHECK...:` lines what FileCheck expects in their output. lit and FileCheck
# are LLVM's (Debian's llvm-14-tools, installed by scripts/setup.sh); CMake passes
# the paths of risec and of that folder of tools as --param risec=... llvm_tools=...
import os

import lit.formats

config.name = "risec"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".rise", ".elv"]
# Inputs/ holds files that RUN lines read (strategies, programs), tools/ helper
# scripts; neither are tests.
config.excludes = ["Inputs", "tools", "lit.cfg.py", "README.md"]
config.test_source_root = os.path.dirname(__file__)
# Scratch files (%t) and lit's timing file go to the build folder, not the sources.
config.test_exec_root = lit_config.params.get("exec_root") or os.path.join(
    os.environ.get("TMPDIR", "/tmp"), "risec-filecheck")

risec = lit_config.params.get("risec")
tools = lit_config.params.get("llvm_tools")
if not risec or not tools:
    lit_config.fatal("run through ctest, or pass --param risec=PATH --param llvm_tools=DIR")

root = os.path.dirname(os.path.dirname(config.test_source_root))
config.substitutions.append(("%risec", risec))
config.substitutions.append(("%examples", os.path.join(root, "examples")))
# `%exit 4 CMD`: CMD must exit with status 4 exactly (tools/expect_exit.py).
config.substitutions.append(
    ("%exit", "python3 " + os.path.join(config.test_source_root, "tools", "expect_exit.py")))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
# `%python`: a Python with numpy, for RUN lines that write .npy inputs: Debian's
# (python3-numpy, scripts/setup.sh), not whichever python3 comes first on the PATH (a
# pyenv one without numpy failed these tests on a fresh machine).
config.substitutions.append(
    ("%python", "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"))
# FileCheck, not and count from LLVM's folder before anything else on the PATH.
config.environment["PATH"] = tools + os.pathsep + os.environ.get("PATH", "")
# The cache of compiled code (docs/cli.md) and the home folder of `run` are passed
# through; the vector width is fixed, so expectations do not depend on the host's.
for name in ("RISEC_CACHE_DIR", "HOME", "TMPDIR"):
    if name in os.environ:
        config.environment[name] = os.environ[name]
config.environment["RISEC_LANES"] = "8"
