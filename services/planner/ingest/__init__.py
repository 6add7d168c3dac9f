"""From footage and a brief to a Task.1: media analysis and the brief compiler."""
