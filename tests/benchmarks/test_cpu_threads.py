import pytest
import torch

from benchmarks.cpu_threads import torch_threads


def test_the_count_holds_inside_and_the_previous_one_comes_back() -> None:
    before = torch.get_num_threads()
    with torch_threads(1) as used:
        assert used == 1 == torch.get_num_threads()
    assert torch.get_num_threads() == before


def test_zero_keeps_torchs_setting() -> None:
    before = torch.get_num_threads()
    with torch_threads(0) as used:
        assert used == before
    assert torch.get_num_threads() == before


def test_the_previous_count_comes_back_after_an_error() -> None:
    before = torch.get_num_threads()
    with pytest.raises(RuntimeError), torch_threads(1):
        raise RuntimeError("boom")
    assert torch.get_num_threads() == before
