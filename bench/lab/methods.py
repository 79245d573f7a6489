"""The trainer's position methods, in the core's table order, read off `poslab methods`: the
bench scripts keep no method list of their own."""
import json
import subprocess


def trainer_methods(poslab):
    out = subprocess.run([poslab, "methods"], check=True, capture_output=True, text=True).stdout
    return [m["name"] for m in json.loads(out) if m["support"]["trainer"]]
