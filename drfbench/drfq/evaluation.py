def lecture(): pass
def lecture_series(): pass
def sweep(): pass
