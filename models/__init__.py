"""ONNX models, their manifests and model cards, and the scripts that train them."""
