"""Slipway's model server for SageMaker framework images (see worker.py)."""
