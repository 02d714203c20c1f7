"""Claims of ``jahaninezhad2021``, a source outside the five seeds: T. Jahani-Nezhad,
M. A. Maddah-Ali, 'Optimal communication-computation trade-off in heterogeneous gradient
coding', IEEE J. Sel. Areas Inf. Theory 2(3), 2021.

Not among the stored paper texts; only the abstract could be retrieved, so the printed
statement is ``not checkable``. One module per topic: ``communication_cost``.
"""
