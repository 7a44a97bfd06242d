"""The rule that chose the taught phrases' similarity threshold (``lab.taught_eval.lowest_exact``)."""

from lab.taught_eval import lowest_exact


def test_the_lowest_threshold_is_the_one_from_which_every_answer_is_right_on_every_curve():
    one = [(0.80, 10, 9), (0.81, 8, 8), (0.82, 6, 6), (0.83, 4, 4)]
    two = [(0.80, 12, 12), (0.81, 9, 8), (0.82, 7, 7), (0.83, 3, 3)]
    assert lowest_exact(one, two) == 0.82
    assert lowest_exact(one) == 0.81


def test_a_wrong_answer_high_up_rules_out_everything_below_it():
    curve = [(0.80, 10, 10), (0.81, 8, 8), (0.82, 6, 5), (0.83, 4, 4)]
    assert lowest_exact(curve) == 0.83
    assert lowest_exact([(0.99, 1, 0)]) is None
