"""drfbench: multi-resource fair allocation (DRF, EDRF, DC-DRF) at public-cloud scale."""
__version__ = "0.1.0"
