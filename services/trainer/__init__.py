"""The trainer: data builders (SFT, pairs, SOLAR rewards), TRL runners, model registry."""
