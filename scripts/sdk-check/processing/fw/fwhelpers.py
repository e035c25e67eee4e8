def split_rows(rows, ratio):
    k = int(len(rows) * ratio)
    return rows[:k], rows[k:]
