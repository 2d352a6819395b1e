"""What the field suite's runner (run-field.py) and the profiler overhead
bench (bench/overhead.py) share: the program, the shim's modes and the
selection of whole namespaces of third-party and framework code."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "clr"))
import clr_common  # noqa: E402

PROGRAM = "IlmapField"
APP = os.path.join(HERE, "app")
CLSID = "{1A6B2C3D-0E4F-4A5B-9C8D-7E6F5A4B3C2D}"

# The namespaces the program drives; each one with everything below it.
NAMESPACES = [
    "Newtonsoft.Json",
    "System.Text.Json",
    "System.Text.RegularExpressions",
    "System.Linq",
    "System.Xml",
    "System.Collections.Generic",
]
# The shim's namespace selector form: every type whose namespace is the
# prefix or starts with the prefix + ".".
NAMESPACE_SELECTION = ";".join(ns + ".*::*" for ns in NAMESPACES)

WRAP_SETTINGS = {"ILMAP_SHIM_WRAP_HOOKS": "[IlmapWrapHooks]IlmapWrapHooks.Hooks",
                 "ILMAP_WRAP_LIGHT": "1"}

# mode: (variable that takes the selection, extra settings)
MODES = {
    "methods": ("ILMAP_SHIM_METHODS", {}),
    "late": ("ILMAP_SHIM_LATE", {}),
    "tiering": ("ILMAP_SHIM_METHODS", {"ILMAP_SHIM_KEEP_TIERING": "1"}),
    "hooks": ("ILMAP_SHIM_METHODS", {"ILMAP_SHIM_ELT": "1"}),
    # The program's own methods observed (bodies stored, never
    # instrumented), the libraries instrumented, and frames recorded where
    # the libraries call back into the program (app/Frames.cs): checks c
    # and c_source on frames whose tokens exist in several modules.
    "frames": ("ILMAP_SHIM_METHODS", {"ILMAP_SHIM_OBSERVE": "IlmapField.*::*"}),
    # Every selected method wrapped in Begin/End calls of the clr suite's
    # hooks library (test/clr/wrap-hooks, loaded by a startup hook, light
    # mode: pairing and counts only), at module load, late, and with
    # tiering kept (doc/shim.md#wrap).
    "wrap": ("ILMAP_SHIM_WRAP", WRAP_SETTINGS),
    "wrap-late": ("ILMAP_SHIM_WRAP_LATE", WRAP_SETTINGS),
    "wrap-tiering": ("ILMAP_SHIM_WRAP", dict(WRAP_SETTINGS, ILMAP_SHIM_KEEP_TIERING="1")),
    # As frames, with the libraries wrapped: checks c, c_store and
    # c_source on frames of wrapped methods.
    "wrap-frames": ("ILMAP_SHIM_WRAP", dict(WRAP_SETTINGS, ILMAP_SHIM_OBSERVE="IlmapField.*::*")),
}
WRAP_MODES = ("wrap", "wrap-late", "wrap-tiering", "wrap-frames")
FRAMES_MODES = ("frames", "wrap-frames")
LATE_MODES = ("late", "wrap-late")
HOOKS_APP = os.path.join(HERE, "..", "clr", "wrap-hooks")
HOOKS_PROGRAM = "IlmapWrapHooks"

def mode_env(env, shim, mode, selection, report=None, preload=None, target=None):
    """env plus the shim loaded in mode ("none": loaded, nothing selected)."""
    settings = {}
    if mode != "none":
        var, extra = MODES[mode]
        settings[var] = selection
        settings.update(extra)
    if report:
        settings["ILMAP_SHIM_REPORT"] = report
    return clr_common.profiler_env(env, CLSID, shim, preload or {}, target, **settings)
