# tb_block.py — a pytest plugin (loaded with `-p tb_block`) that makes the modules named in
# $TB_BLOCK_MODULES (comma-separated) fail to import, so that a suite skips what needs them:
# netCDF4's wheel carries its own HDF5 2.x, which h5turbo cannot serve yet (issue #15).
import os
import sys

for _name in filter(None, os.environ.get("TB_BLOCK_MODULES", "").split(",")):
    # A None entry in sys.modules makes `import name` raise ImportError.
    sys.modules[_name] = None
